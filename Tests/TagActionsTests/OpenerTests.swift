import Foundation
import TagActions
import Testing

@Suite("Opener")
struct OpenerTests {
    @Test("the opener is found on PATH and receives the URI as one argument")
    func opensThroughRunner() async throws {
        try await TestEnvironment.withTemporaryDirectory { directory in
            let bin = directory + "/bin"
            try FileManager.default.createDirectory(atPath: bin, withIntermediateDirectories: true)
            let name = Opener.candidateNames[0]
            try FileManager.default.createSymbolicLink(
                atPath: bin + "/" + name, withDestinationPath: TestEnvironment.argvRecorder)
            let opener = try Opener.find(searchPath: "/nonexistent:" + bin)
            #expect(opener.path == bin + "/" + name)
            let uri = "spotify:track:1; touch /tmp/owned"
            var command = opener.command(opening: uri)
            command.environment["ARGV_RECORDER_OUT"] = directory + "/out.json"
            let result = try await CommandRunner(logger: TestEnvironment.logger).run(command)
            #expect(result.isSuccess)
            let recording = try Recording(path: directory + "/out.json")
            #expect(recording.argv == [Array((bin + "/" + name).utf8), Array(uri.utf8)])
        }
    }

    @Test("no opener is a clear error")
    func noOpener() {
        #expect {
            try Opener.find(searchPath: "/nonexistent-a:/nonexistent-b")
        } throws: { error in
            (error as? ActionError)?.description
                == "no URL opener: \(Opener.candidateNames[0]) not found on PATH (/nonexistent-a:/nonexistent-b); "
                + "install xdg-utils or use a 'run' action"
        }
    }
}

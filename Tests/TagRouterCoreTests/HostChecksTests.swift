import Foundation
import TagActions
import TagRules
import Testing

@testable import RouterCommands

@Test func kernelModulesFlagsPN533() {
    let clean = "snd_hda_intel 57344 3 - Live 0x0000000000000000\nusbhid 65536 0 - Live 0x0\n"
    #expect(HostChecks.kernelModules(procModules: clean).status == .ok)
    let busy = "pn533_usb 20480 0 - Live 0x0\npn533 45056 1 pn533_usb, Live 0x0\nnfc 135168 1 pn533, Live 0x0\n"
    let check = HostChecks.kernelModules(procModules: busy)
    #expect(check.status == .problem)
    #expect(check.detail == "pn533_usb, pn533, nfc loaded: the kernel claims PN533 readers (ACR122U) before pcscd")
    #expect(check.fix?.contains("blacklist-pn533.conf") == true)
}

@Test func stateDirectoryIsCreatedAndWritable() throws {
    let base = FileManager.default.temporaryDirectory.appendingPathComponent("doctor-\(UUID().uuidString)").path
    defer { try? FileManager.default.removeItem(atPath: base) }
    #expect(HostChecks.stateDirectory(base + "/state").status == .ok)
    // doctor creates it as the router does: private, 0700 (it holds deliveries with their secrets).
    for path in [base, base + "/state"] {
        #expect((try FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? Int) == 0o700)
    }
    // A regular file where a directory should be cannot be used.
    #expect(FileManager.default.createFile(atPath: base + "/file", contents: Data()))
    #expect(HostChecks.stateDirectory(base + "/file/state").status == .problem)
}

@Test func openerIsFoundOnPath() throws {
    let base = FileManager.default.temporaryDirectory.appendingPathComponent("opener-\(UUID().uuidString)").path
    defer { try? FileManager.default.removeItem(atPath: base) }
    try FileManager.default.createDirectory(atPath: base, withIntermediateDirectories: true)
    #expect(HostChecks.opener(path: base, needed: true).status == .problem)
    #expect(HostChecks.opener(path: base, needed: false).status == .warning)
    let opener = base + "/xdg-open"
    #expect(
        FileManager.default.createFile(
            atPath: opener, contents: Data("#!/bin/sh\n".utf8), attributes: [.posixPermissions: 0o755]))
    #expect(
        HostChecks.opener(path: "/nonexistent:" + base, needed: true)
            == DoctorCheck(name: "opener", status: .ok, detail: "open rules use \(opener)"))
}

@Test("doctor warns when the MQTT password went to another machine over plain mqtt://")
func doctorWarnsAboutAPlainTextMQTTPassword() throws {
    func settings(_ url: String, password: Bool) throws -> MQTTSettings {
        let credentials = password ? "\n  username: door\n  password: hunter2-7c1d" : ""
        let text = "version: 1\nmqtt:\n  url: \(url)\(credentials)\nrules: []\n"
        return try #require(try RuleSet.load(files: [("f.yaml", text)], environment: [:]).get().mqtt)
    }
    let plain = Doctor.mqttCheck(try settings("mqtt://broker.example", password: true), probe: .connected)
    #expect(plain.status == .warning)
    #expect(plain.detail.contains("plain mqtt://"))
    #expect(plain.fix?.contains("mqtts://") == true)
    #expect(!plain.detail.contains("hunter2-7c1d") && plain.fix?.contains("hunter2-7c1d") != true)
    for (url, password) in [
        ("mqtts://broker.example", true), ("mqtt://localhost", true), ("mqtt://broker.example", false),
    ] {
        #expect(Doctor.mqttCheck(try settings(url, password: password), probe: .connected).status == .ok, "\(url)")
    }
}

/// Stops the run with a message when a fuzz invariant does not hold; libFuzzer then saves the input.
/// - Parameters:
///   - condition: the invariant.
///   - message: what was expected, for the crash report.
public func check(_ condition: Bool, _ message: @autoclosure () -> String) {
    if !condition { fatalError("invariant broken: \(message())") }
}

import CFuzzDriver

/// Starts libFuzzer with the process's arguments and `callback` as the fuzz target.
///
/// SwiftPM links an executable with `main` aliased to `<module>_main`; each target defines that function (with
/// `@_cdecl`) and calls this, so the libFuzzer flags (`-max_total_time`, corpus folders) work as usual.
/// - Parameters:
///   - argc: the argument count from `main`.
///   - argv: the arguments from `main`.
///   - callback: the fuzz target, `LLVMFuzzerTestOneInput`.
/// - Returns: libFuzzer's exit status.
public func runFuzzer(
    _ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>,
    _ callback: @convention(c) (UnsafePointer<UInt8>?, Int) -> CInt
) -> CInt {
    var count = argc
    var arguments: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>? = argv
    return LLVMFuzzerRunDriver(&count, &arguments, callback)
}

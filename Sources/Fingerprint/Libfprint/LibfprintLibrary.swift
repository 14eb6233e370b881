internal import CFprint

/// libfprint and the GLib functions fingerlock calls, opened with `dlopen` the first time a reader
/// is asked for.
///
/// Linked normally, libfprint's 25 libraries were mapped and bound at every start of the CLI, for
/// `--help`, `notes list` on the simulated reader and every system-mode command, none of which scans
/// here (in system mode the service owns the reader). Opening it on first use moves that cost to the
/// commands that use a hardware reader, and a machine without libfprint still runs everything else.
///
/// Like a linked library, it is the process's: loaded once, never unloaded (GLib types cannot be).
/// That is why this is a process-wide value and not an injected dependency: it replaces the dynamic
/// linker's binding, and every ``LibfprintContext`` of the process shares it.
struct LibfprintLibrary: @unchecked Sendable {
    // @unchecked: an immutable table of C function addresses, filled before the value is shared.
    let functions: FLFprintFunctions

    /// The library, opened by the first caller; the same result (or failure) afterwards.
    static let shared: Result<LibfprintLibrary, FingerprintError> = open()

    private static func open() -> Result<LibfprintLibrary, FingerprintError> {
        // Uninitialised until the loader fills it: the table has no zero value (no field may be NULL).
        let functions = UnsafeMutablePointer<FLFprintFunctions>.allocate(capacity: 1)
        defer { functions.deallocate() }
        if let failure = fl_fprint_load(functions) {
            let reason = String(cString: failure)
            return .failure(
                .noReader(
                    "No hardware reader can be used: libfprint could not be loaded (\(reason)). "
                        + "Install it: sudo apt install libfprint-2-2"))
        }
        return .success(LibfprintLibrary(functions: functions.pointee))
    }

    /// Opens the library if it is not open yet; throws when it cannot be.
    ///
    /// Every way into libfprint (a context's enumeration, reading a template's metadata) calls this
    /// first, so that ``libfprint`` is only ever read once the library is open.
    static func require() throws(FingerprintError) {
        if case .failure(let error) = shared { throw error }
    }
}

/// The library's functions: `libfprint.fp_context_new()`.
///
/// Read only behind a successful ``LibfprintLibrary/require()``: libfprint objects (contexts, devices,
/// prints, errors) exist only after it, so a failure here is a programming error.
var libfprint: FLFprintFunctions {
    switch LibfprintLibrary.shared {
    case .success(let library): library.functions
    case .failure(let error): preconditionFailure("libfprint used without LibfprintLibrary.require(): \(error)")
    }
}

/// A string libfprint returns, copied; "" where it returned NULL (a property never set).
func libfprintText(_ text: UnsafePointer<gchar>?) -> String {
    text.map { String(cString: $0) } ?? ""
}

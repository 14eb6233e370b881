internal import CGio

/// GIO's D-Bus client and the GLib functions it needs, opened with `dlopen` the first time the
/// service asks logind (as `LibfprintLibrary` opens libfprint, which links this same GIO).
///
/// Like a linked library it is the process's: loaded once, never unloaded.
struct GioLibrary: @unchecked Sendable {
    // @unchecked: an immutable table of C function addresses, filled before the value is shared.
    let functions: FLGioFunctions

    static let shared: Result<GioLibrary, LoginQueryError> = open()

    private static func open() -> Result<GioLibrary, LoginQueryError> {
        // Uninitialised until the loader fills it: the table has no zero value (no field may be NULL).
        let functions = UnsafeMutablePointer<FLGioFunctions>.allocate(capacity: 1)
        defer { functions.deallocate() }
        if let failure = fl_gio_load(functions) {
            return .failure(.absent("GIO could not be loaded: \(String(cString: failure))"))
        }
        return .success(GioLibrary(functions: functions.pointee))
    }

    /// The table, or why GIO cannot be used.
    static func require() throws(LoginQueryError) -> FLGioFunctions {
        switch shared {
        case .success(let library): return library.functions
        case .failure(let error): throw error
        }
    }
}

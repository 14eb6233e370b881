internal import CGio

/// GIO's D-Bus client and the GLib functions it needs, opened with `dlopen` (as `LibfprintLibrary`
/// opens libfprint, which links this same GIO) only by what talks to the bus, so a command that
/// asks no service maps no GLib. Like a linked library it is never unloaded.
public struct GioLibrary: @unchecked Sendable {
    // @unchecked: an immutable table of C function addresses, filled before the value is shared.
    let functions: FLGioFunctions

    public static func open() -> Result<GioLibrary, SystemBusError> {
        // Uninitialised until the loader fills it: the table has no zero value (no field may be NULL).
        let functions = UnsafeMutablePointer<FLGioFunctions>.allocate(capacity: 1)
        defer { functions.deallocate() }
        if let failure = fl_gio_load(functions) {
            return .failure(.absent("GIO could not be loaded: \(String(cString: failure))"))
        }
        return .success(GioLibrary(functions: functions.pointee))
    }

    /// The table of `loaded`, or why GIO cannot be used.
    static func require(_ loaded: Result<GioLibrary, SystemBusError>) throws(SystemBusError) -> FLGioFunctions {
        switch loaded {
        case .success(let library): return library.functions
        case .failure(let error): throw error
        }
    }
}

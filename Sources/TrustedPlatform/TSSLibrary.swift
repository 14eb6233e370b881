internal import CTSS2

/// tpm2-tss's functions, opened with `dlopen` the first time a TPM is asked for (as libfprint is):
/// a process that never asks one (every command of a vault whose passcode is not bound) does not map
/// tpm2-tss and libcrypto at start. Like a linked library it is the process's: loaded once, never
/// unloaded, so a process-wide value rather than an injected dependency.
struct TSSLibrary: @unchecked Sendable {
    // @unchecked: an immutable table of C function addresses, filled before the value is shared.
    let functions: FLTSSFunctions

    /// The library, opened by the first caller; the same result (or failure) afterwards.
    static let shared: Result<TSSLibrary, TPMError> = open()

    private static func open() -> Result<TSSLibrary, TPMError> {
        // Uninitialised until the loader fills it: the table has no zero value (no field may be NULL).
        let functions = UnsafeMutablePointer<FLTSSFunctions>.allocate(capacity: 1)
        defer { functions.deallocate() }
        if let failure = fl_tss_load(functions) {
            return .failure(
                TPMError(
                    .unreachable,
                    "The TPM cannot be used: tpm2-tss could not be loaded (\(String(cString: failure))). "
                        + "Install it: sudo apt install libtss2-esys-3.0.2-0 libtss2-tctildr0 libtss2-rc0"))
        }
        return .success(TSSLibrary(functions: functions.pointee))
    }

    /// Opens the library if it is not open yet; throws when it cannot be. Every way into tpm2-tss
    /// (a connection) calls this first, so ``tss`` is only read once the library is open.
    static func require() throws(TPMError) {
        if case .failure(let error) = shared { throw error }
    }
}

/// The library's functions: `tss.Esys_Unseal(...)`. Read only behind a successful
/// ``TSSLibrary/require()``.
var tss: FLTSSFunctions {
    switch TSSLibrary.shared {
    case .success(let library): library.functions
    case .failure(let error): preconditionFailure("tpm2-tss used without TSSLibrary.require(): \(error)")
    }
}

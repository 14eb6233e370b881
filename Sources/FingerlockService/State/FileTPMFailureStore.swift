public import AuthCore
import FoundationEssentials
import SafeFiles
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// The ledger as one 0600 JSON file in the state directory (`DIR/v1/tpm-failures`), replaced
/// atomically and durably (`AtomicFile`): a charge is on disk before the TPM is asked, so neither a
/// killed service nor a power cut gives a share back. Held alone by a lock inside the process
/// (fingerlockd's connections, woken in turn rather than polling) and a `flock` on
/// `tpm-failures.lock` (any other process on the same state).
public final class FileTPMFailureStore: TPMFailureStore {
    private let path: String
    private let lockPath: String
    private let inProcess = Mutex(())

    public init(layout: StateLayout) {
        path = layout.root.appending("v1/tpm-failures")
        lockPath = layout.root.appending("v1/tpm-failures.lock")
    }

    public func exclusively<T: Sendable>(
        _ body: (_ ledger: TPMFailureLedger, _ save: (TPMFailureLedger) throws -> Void) throws -> T
    ) throws -> T {
        try inProcess.withLock { _ in
            let lock = try FileLock(path: lockPath)
            return try withExtendedLifetime(lock) {
                try body(try read()) { try write($0) }
            }
        }
    }

    /// The ledger as written; none yet is an empty one. Anything unreadable is damage, never "no
    /// charges" (which would hand every share back).
    private func read() throws -> TPMFailureLedger {
        guard access(path, F_OK) == 0 else {
            guard errno == ENOENT else { throw ServiceStateError(.io, "cannot inspect \(path) (errno \(errno))") }
            return TPMFailureLedger()
        }
        try PrivateDirectory.checkFile(path)
        let bytes = try AtomicFile.read(path)
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .millisecondsSince1970
        guard let ledger = try? decoder.decode(TPMFailureLedger.self, from: Data(bytes)) else {
            throw ServiceStateError(.damaged, "\(path) is not a TPM failure ledger")
        }
        return ledger
    }

    private func write(_ ledger: TPMFailureLedger) throws {
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = .millisecondsSince1970
        encoder.outputFormatting = [.sortedKeys]
        try AtomicFile.write(Array(try encoder.encode(ledger)), to: path)
    }
}

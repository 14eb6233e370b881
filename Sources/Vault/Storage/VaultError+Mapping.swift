import GRDB
import SafeFiles

extension VaultError {
    /// Maps whatever a lower layer threw to the one error type the vault's callers see.
    package static func from(_ error: any Error) -> VaultError {
        switch error {
        case let error as VaultError:
            return error
        case let error as SafeFilesError:
            switch error.code {
            case .tooOpen, .notOwned, .notADirectory, .notARegularFile: return VaultError(.permissions, error.message)
            case .lockTimeout: return VaultError(.busy, error.message)
            case .diskFull: return VaultError(.diskFull, error.message)
            case .io, .missing: return VaultError(.io, error.message)
            case .exists: return VaultError(.alreadyExists, error.message)
            }
        case let error as DatabaseError:
            let detail = error.message ?? "\(error.resultCode)"
            if error.extendedResultCode == .SQLITE_IOERR_WRITE {
                // SQLite reports ENOSPC as SQLITE_FULL only for short writes; a write refused
                // outright (no space left, quota, file-size limit) arrives as this write error.
                // Either way the transaction was rolled back.
                return VaultError(
                    .diskFull, "Could not write the vault: the disk is full or refused the write. Nothing was changed.")
            }
            switch error.resultCode {
            case .SQLITE_BUSY, .SQLITE_LOCKED:
                return VaultError(.busy, "The vault is busy in another process; try again in a moment.")
            case .SQLITE_FULL:
                return .diskFull("SQLite: \(detail)")
            case .SQLITE_NOTADB:
                return VaultError(.notAVault, "This file is not a fingerlock vault (not a database).")
            case .SQLITE_CANTOPEN, .SQLITE_IOERR, .SQLITE_PERM, .SQLITE_READONLY, .SQLITE_NOMEM:
                return VaultError(.io, "The vault could not be read or written: \(detail).")
            case .SQLITE_CONSTRAINT:
                return VaultError(.alreadyExists, "An entry with this id already exists.")
            default:
                // In a vault we created, any other SQL failure (missing table, malformed schema,
                // corrupt page) means the file was damaged or edited.
                return .corrupt("database", detail)
            }
        default:
            return VaultError(.io, "Unexpected failure: \(error).")
        }
    }
}

/// Runs `body`, mapping any failure to a `VaultError`.
func guarded<T>(_ body: () throws -> T) throws(VaultError) -> T {
    do {
        return try body()
    } catch {
        throw VaultError.from(error)
    }
}

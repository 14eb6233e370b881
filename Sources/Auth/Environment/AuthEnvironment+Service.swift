import Foundation
import Vault

/// Calls to fingerlockd with its answers as the policy's errors.
extension AuthEnvironment {
    func systemCall<T>(_ body: () throws -> T) throws -> T {
        do {
            return try body()
        } catch let error as SystemServiceError {
            throw AuthError.from(systemService: error)
        }
    }

    func asyncSystemCall<T>(_ body: () async throws -> T) async throws -> T {
        do {
            return try await body()
        } catch let error as SystemServiceError {
            throw AuthError.from(systemService: error)
        }
    }
}

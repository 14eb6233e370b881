import Foundation
import GRDB

/// Column access that never traps. GRDB's typed subscripts stop the process when a value has an
/// unexpected type or is NULL; in a damaged or edited vault file anything can be anywhere, so every
/// read goes through `DatabaseValue` and a mismatch becomes a nil the caller reports as tampering.
extension Row {
    func text(_ index: Int) -> String? {
        guard case .string(let value) = (self[index] as DatabaseValue).storage else { return nil }
        return value
    }

    func blob(_ index: Int) -> Data? {
        guard case .blob(let value) = (self[index] as DatabaseValue).storage else { return nil }
        return value
    }

    func integer(_ index: Int) -> Int64? {
        guard case .int64(let value) = (self[index] as DatabaseValue).storage else { return nil }
        return value
    }
}

/// The attempt counters could not be read or written. Never a reason to unlock: the hosts report it
/// as damage (user mode) or a service failure (fingerlockd), and count nothing less for it.
public struct AttemptStoreError: Error, Equatable, Sendable, CustomStringConvertible {
    public var message: String
    public init(_ message: String) { self.message = message }
    public var description: String { message }
}

public import Foundation

/// One vault's client-side values: the stretched passcode, the store master key, the AD. What a
/// client sends fingerlockd, whether the test calls the service in process or over its socket.
public struct ClientVault: Sendable {
    public var id = UUID().uuidString
    public var stretched = Data((0..<32).map { _ in UInt8.random(in: 0...255) })
    public var key = Data((0..<32).map { _ in UInt8.random(in: 0...255) })
    public var associatedData = Data("fingerlock slot table v1".utf8)

    public init() {}

    /// A stretched passcode that is not the vault's.
    public static let wrong = Data(repeating: 7, count: 32)
}

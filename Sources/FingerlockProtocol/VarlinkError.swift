/// A Varlink error reply: a fully qualified error name and its parameters.
///
/// The parameters are plain values (numbers and strings), never anything secret: every error can be
/// logged by name and sent as it is.
public struct VarlinkError: Error, Equatable, Sendable {
    public enum Value: Equatable, Sendable, Codable {
        case int(Int)
        case string(String)

        /// Error parameters are ints and strings in this interface; anything else reads as its
        /// absence (a client must not fail on an error it cannot fully read).
        public init(from decoder: any Decoder) throws {
            let container = try decoder.singleValueContainer()
            if let value = try? container.decode(Int.self) {
                self = .int(value)
            } else {
                self = .string(try container.decode(String.self))
            }
        }

        public func encode(to encoder: any Encoder) throws {
            var container = encoder.singleValueContainer()
            switch self {
            case .int(let value): try container.encode(value)
            case .string(let value): try container.encode(value)
            }
        }
    }

    public var name: String
    public var parameters: [String: Value]

    public init(name: String, parameters: [String: Value] = [:]) {
        self.name = name
        self.parameters = parameters
    }

    public init(_ name: ServiceInterface.ErrorName, _ parameters: [String: Value] = [:]) {
        self.init(name: name.qualifiedName, parameters: parameters)
    }

    // org.varlink.service's own errors.
    public static func invalidParameter(_ parameter: String) -> VarlinkError {
        VarlinkError(name: "org.varlink.service.InvalidParameter", parameters: ["parameter": .string(parameter)])
    }

    public static func methodNotFound(_ method: String) -> VarlinkError {
        VarlinkError(name: "org.varlink.service.MethodNotFound", parameters: ["method": .string(method)])
    }

    public static func interfaceNotFound(_ interface: String) -> VarlinkError {
        VarlinkError(name: "org.varlink.service.InterfaceNotFound", parameters: ["interface": .string(interface)])
    }

    /// An int parameter, for clients and tests.
    public func int(_ key: String) -> Int? {
        if case .int(let value) = parameters[key] { value } else { nil }
    }

    /// A string parameter, for clients and tests.
    public func string(_ key: String) -> String? {
        if case .string(let value) = parameters[key] { value } else { nil }
    }
}

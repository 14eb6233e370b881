public import FoundationEssentials

/// Encodes replies: `{"parameters": {...}}` or `{"error": NAME, "parameters": {...}}`, each
/// followed by the NUL that ends a Varlink message.
public enum VarlinkReply {
    private struct Success<Parameters: Encodable>: Encodable {
        var parameters: Parameters
        /// Present (true) only on the replies of a `more` call that others follow.
        var continues: Bool?
    }

    private struct Failure: Encodable {
        var error: String
        var parameters: [String: VarlinkError.Value]
    }

    public static func encode<Parameters: Encodable>(_ parameters: Parameters, continues: Bool = false) -> Data {
        terminated(try? encoder().encode(Success(parameters: parameters, continues: continues ? true : nil)))
    }

    public static func encode(_ error: VarlinkError) -> Data {
        terminated(try? encoder().encode(Failure(error: error.name, parameters: error.parameters)))
    }

    private static func encoder() -> JSONEncoder {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return encoder
    }

    /// Encoding these plain structs cannot fail; were it ever to, the client gets a well-formed
    /// error rather than nothing.
    private static func terminated(_ body: Data?) -> Data {
        var data =
            body ?? Data(#"{"error":"io.fingerlock.Service.ServiceFailure","parameters":{"reason":"encoding"}}"#.utf8)
        data.append(0)
        return data
    }
}

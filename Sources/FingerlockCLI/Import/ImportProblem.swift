/// One line saying where a JSON import went wrong (no contents quoted: a value may be a secret).
enum ImportProblem {
    static func describe(_ error: DecodingError) -> String {
        func place(_ path: [any CodingKey]) -> String {
            let parts = path.map { key in key.intValue.map { "entry \($0 + 1)" } ?? "\"\(key.stringValue)\"" }
            return parts.isEmpty ? "the top level" : parts.joined(separator: ", ")
        }
        switch error {
        case .keyNotFound(let key, let context):
            return "\(place(context.codingPath)): \"\(key.stringValue)\" is missing"
        case .typeMismatch(_, let context), .valueNotFound(_, let context):
            return "\(place(context.codingPath)): unexpected type"
        case .dataCorrupted(let context):
            return context.codingPath.isEmpty ? "not valid JSON" : "\(place(context.codingPath)): \(context.debugDescription)"
        @unknown default:
            return "unreadable"
        }
    }
}

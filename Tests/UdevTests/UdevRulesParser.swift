/// A strict parser for the udev rules we generate. Debian bookworm's udevadm has no `verify`, so the
/// tests check the syntax themselves: every line is blank, a comment, or a rule made of
/// comma-separated `KEY[{attribute}]OPERATOR"value"` pairs with a known key and an operator that
/// key accepts.
struct UdevRulesParser {
    struct Pair: Equatable, Sendable {
        var key: String
        var attribute: String?
        var op: String
        var value: String
    }

    struct Rule: Equatable, Sendable {
        var line: Int
        var pairs: [Pair]

        func value(_ key: String, _ attribute: String? = nil) -> String? {
            pairs.first { $0.key == key && $0.attribute == attribute }?.value
        }
    }

    struct SyntaxError: Error, Equatable, CustomStringConvertible {
        var line: Int
        var reason: String
        var description: String { "line \(line): \(reason)" }
    }

    static let matchOperators: Set<String> = ["==", "!="]
    static let assignOperators: Set<String> = ["=", "+=", "-=", ":="]

    enum AttributeRule { case required, optional, forbidden }

    /// Which operators each key accepts (udev(7)) and whether it takes a `{…}` attribute name.
    static let keys: [String: (operators: Set<String>, attribute: AttributeRule)] = [
        "ACTION": (matchOperators, .forbidden),
        "SUBSYSTEM": (matchOperators, .forbidden),
        "SUBSYSTEMS": (matchOperators, .forbidden),
        "KERNEL": (matchOperators, .forbidden),
        "KERNELS": (matchOperators, .forbidden),
        "DEVPATH": (matchOperators, .forbidden),
        "DRIVER": (matchOperators, .forbidden),
        "DRIVERS": (matchOperators, .forbidden),
        "ATTR": (matchOperators.union(["="]), .required),
        "ATTRS": (matchOperators, .required),
        "ENV": (matchOperators.union(["=", "+="]), .required),
        "TAG": (matchOperators.union(["+=", "-=", "="]), .forbidden),
        "TAGS": (matchOperators, .forbidden),
        "TEST": (matchOperators, .optional),
        "GROUP": (["=", ":="], .forbidden),
        "OWNER": (["=", ":="], .forbidden),
        "MODE": (["=", ":="], .forbidden),
        "GOTO": (["="], .forbidden),
        "LABEL": (["="], .forbidden),
        "RUN": (["=", "+=", ":="], .optional),
    ]

    /// Operators longest first, so `==` is not read as `=`.
    static let operators = ["==", "!=", "+=", "-=", ":=", "="]

    /// Parses a whole file; returns its rules or throws the first syntax error.
    static func parse(_ text: String) throws(SyntaxError) -> [Rule] {
        var rules: [Rule] = []
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false)
        for (index, raw) in lines.enumerated() {
            let number = index + 1
            let line = raw.drop { $0 == " " || $0 == "\t" }
            if line.isEmpty || line.hasPrefix("#") { continue }
            if line.hasSuffix("\\") { throw SyntaxError(line: number, reason: "line continuation is not used here") }
            rules.append(Rule(line: number, pairs: try parseRule(Substring(line), line: number)))
        }
        try checkLabels(rules)
        return rules
    }

    private static func parseRule(_ text: Substring, line: Int) throws(SyntaxError) -> [Pair] {
        var rest = text
        var pairs: [Pair] = []
        while true {
            let keyEnd = rest.firstIndex { !($0.isUppercase || $0 == "_") } ?? rest.endIndex
            let key = String(rest[..<keyEnd])
            guard let spec = keys[key] else {
                throw SyntaxError(line: line, reason: "unknown key '\(key.isEmpty ? String(rest.prefix(10)) : key)'")
            }
            rest = rest[keyEnd...]
            var attribute: String?
            if rest.hasPrefix("{") {
                guard let close = rest.firstIndex(of: "}") else {
                    throw SyntaxError(line: line, reason: "unterminated '{' after \(key)")
                }
                attribute = String(rest[rest.index(after: rest.startIndex)..<close])
                guard let attribute, !attribute.isEmpty else {
                    throw SyntaxError(line: line, reason: "empty attribute name after \(key)")
                }
                rest = rest[rest.index(after: close)...]
            }
            switch (spec.attribute, attribute) {
            case (.required, nil): throw SyntaxError(line: line, reason: "\(key) needs {attribute}")
            case (.forbidden, .some): throw SyntaxError(line: line, reason: "\(key) takes no {attribute}")
            default: break
            }
            guard let op = operators.first(where: { rest.hasPrefix($0) }) else {
                throw SyntaxError(line: line, reason: "missing operator after \(key)")
            }
            guard spec.operators.contains(op) else {
                throw SyntaxError(line: line, reason: "operator \(op) not allowed with \(key)")
            }
            rest = rest.dropFirst(op.count)
            guard rest.hasPrefix("\"") else {
                throw SyntaxError(line: line, reason: "value of \(key) must be in double quotes")
            }
            rest = rest.dropFirst()
            guard let quote = rest.firstIndex(of: "\"") else {
                throw SyntaxError(line: line, reason: "unterminated value of \(key)")
            }
            let value = String(rest[..<quote])
            rest = rest[rest.index(after: quote)...]
            pairs.append(Pair(key: key, attribute: attribute, op: op, value: value))
            rest = rest.drop { $0 == " " || $0 == "\t" }
            if rest.isEmpty { break }
            guard rest.hasPrefix(",") else {
                throw SyntaxError(line: line, reason: "expected ',' between pairs")
            }
            rest = rest.dropFirst().drop { $0 == " " || $0 == "\t" }
            guard !rest.isEmpty else { throw SyntaxError(line: line, reason: "trailing ','") }
        }
        return pairs
    }

    /// Every GOTO must jump to a LABEL defined later in the same file (udev only jumps forward).
    private static func checkLabels(_ rules: [Rule]) throws(SyntaxError) {
        for rule in rules {
            guard let target = rule.value("GOTO") else { continue }
            let found = rules.contains { $0.line > rule.line && $0.value("LABEL") == target }
            guard found else { throw SyntaxError(line: rule.line, reason: "GOTO \"\(target)\" has no later LABEL") }
        }
    }
}

import Foundation

/// Everything `fingerlock doctor` found, and how the command should exit.
public struct DoctorReport: Sendable, Equatable {
    public var findings: [DoctorFinding]

    public init(findings: [DoctorFinding]) {
        self.findings = findings
    }

    /// Whether any finding stops fingerprint unlock from working.
    public var blocksFingerprintUnlock: Bool { findings.contains { $0.status == .error } }

    /// 0 when fingerprint unlock can work, 1 when something blocks it (like `brew doctor`: the
    /// report is the output, the status says whether to read it).
    public var exitStatus: Int32 { blocksFingerprintUnlock ? 1 : 0 }

    /// One line per finding: `[status] check: message — fix: …`.
    public func text(color: Bool = false) -> String {
        findings.map { finding in
            let label = "[\(finding.status.rawValue)]"
            let shown: String
            if color {
                let code =
                    switch finding.status {
                    case .ok: "32"
                    case .warning: "33"
                    case .error: "31"
                    }
                shown = "\u{1B}[\(code)m\(label)\u{1B}[0m"
            } else {
                shown = label
            }
            // Messages line up after the longest label, `[warning]`.
            let padding = String(repeating: " ", count: max(0, 9 - label.count) + 1)
            var line = shown + padding + "\(finding.check): \(finding.message)"
            if let fix = finding.fix { line += " — fix: \(fix)" }
            return line
        }.joined(separator: "\n") + "\n"
    }

    /// The `--json` shape: an array of `{check, status, message, fix}`.
    public func json() throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        return String(decoding: try encoder.encode(findings), as: UTF8.self) + "\n"
    }
}

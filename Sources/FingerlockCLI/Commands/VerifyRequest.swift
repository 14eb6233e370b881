import Auth
import Fingerprint

/// One `fingerlock verify`, as plain values: what `VerifyCommand` parses, and what its fast parser reads.
///
/// `verify` is what scripts run, often in a loop, and its whole run takes a few milliseconds, of which
/// ArgumentParser's reflection-driven parse would be about two. So `init(fastParsing:)` reads the usual
/// command lines itself, and declines (returns nil) for anything else, which ArgumentParser then parses
/// as before, with its help and its error messages. It accepts only what it can read with certainty and
/// what ArgumentParser would accept as the same request; the tests hold the two parsers to that.
struct VerifyRequest: Equatable {
    var global: GlobalSettings
    /// Where scripted passcodes come from (`--passcode-stdin` is 0), or nil for the terminal.
    var passcodeDescriptor: Int32?
    /// The finger to check, or nil for `any`.
    var finger: Finger?
    /// `--json` (left to ArgumentParser: the fast parser declines it).
    var json: Bool

    init(global: GlobalSettings, passcodeDescriptor: Int32?, finger: Finger?, json: Bool = false) {
        self.global = global
        self.passcodeDescriptor = passcodeDescriptor
        self.finger = finger
        self.json = json
    }

    /// Reads `verify [FINGER|any]` with `--reader`, `--data-dir`, `--passcode-stdin` or `--passcode-fd` (each
    /// at most once, in any order, `--name value` or `--name=value`), as the arguments look after the global
    /// options are hoisted. Nil for everything else: help, `--`, short options, repeats, values that
    /// look like options, an unknown finger, a closed descriptor.
    init?(fastParsing arguments: [String]) {
        guard arguments.first == "verify" else { return nil }
        var options: [String: String] = [:]
        var passcodeStdin = false
        var fingerName: String?
        var rest = arguments.dropFirst()
        while let argument = rest.popFirst() {
            guard argument.hasPrefix("--") else {
                // A positional: the finger, once. A lone "-" or a short option is left to ArgumentParser.
                guard !argument.hasPrefix("-"), fingerName == nil else { return nil }
                fingerName = argument
                continue
            }
            let parts = argument.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            let name = String(parts[0])
            let inline = parts.count == 2 ? String(parts[1]) : nil
            switch name {
            case "--passcode-stdin":
                guard inline == nil, !passcodeStdin else { return nil }
                passcodeStdin = true
            case "--reader", "--data-dir", "--socket", "--passcode-fd":
                guard options[name] == nil, let value = inline ?? rest.popFirst(), !value.isEmpty, !value.hasPrefix("-")
                else { return nil }
                options[name] = value
            default:
                return nil
            }
        }
        guard let descriptor = PasscodeOptions.fastDescriptor(stdin: passcodeStdin, fdText: options["--passcode-fd"]) else {
            return nil
        }
        var finger: Finger?
        if let fingerName, fingerName != "any" {
            guard let named = Finger(name: fingerName) else { return nil }
            finger = named
        }
        // A --reader every command refuses is ArgumentParser's to report, through GlobalOptions.validate.
        if let reader = options["--reader"], (try? ReaderChoice.validate(reader)) == nil { return nil }
        self.init(
            global: GlobalSettings(
                reader: options["--reader"], dataDir: options["--data-dir"], socket: options["--socket"]),
            passcodeDescriptor: descriptor, finger: finger)
    }

    /// One touch: returns on a match, throws otherwise (a no-match counts towards the lockout).
    func run(with dependencies: CLIDependencies) async throws {
        let session = try await AuthSession(
            global: global, passcodeDescriptor: passcodeDescriptor, dependencies: dependencies, json: json)
        let verification = TouchVerification(session.environment)
        let result = try await withInterruptCancellation { [finger] in try await verification.verifyTouch(finger: finger) }
        if json {
            try dependencies.console.printJSON(Match(matched: true, finger: result.finger?.description, reader: result.reader.description))
        } else if let finger = result.finger {
            dependencies.console.print(dependencies.console.green("Match: \(finger)."))
        } else {
            dependencies.console.print(dependencies.console.green("Match (the reader does not say which finger)."))
        }
    }

    /// `verify --json` on a match. `matched` is always true here (anything else is an error object
    /// and a non-zero status), so a script may test either.
    struct Match: Encodable {
        var matched: Bool
        /// null when the fingers' keeper does not say which finger matched.
        var finger: String?
        var reader: String

        enum CodingKeys: String, CodingKey { case matched, finger, reader }

        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(matched, forKey: .matched)
            try container.encode(finger, forKey: .finger)
            try container.encode(reader, forKey: .reader)
        }
    }
}

import ArgumentParser
import Auth
import AuthCore

struct ConfigCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "config",
        abstract: "Read or change the security settings (stored sealed in the vault).",
        discussion: SecuritySettings.Key.allCases.map { "\($0.rawValue): \($0.help)" }.joined(separator: "\n"),
        subcommands: [Get.self, Set.self])

    static let keyHelp = ArgumentHelp(
        "cache-expiry, reuse-window, max-tries, scan-timeout, clip-clear, history-limit or trash-keep.", valueName: "key")
    static var keyCompletion: CompletionKind { .list(SecuritySettings.Key.allCases.map(\.rawValue)) }

    /// Values worth offering for the setting named just before the one being completed: the
    /// default and round values within its range (any value in range is accepted).
    static func valueCompletions(_ words: [String], _ index: Int) -> [String] {
        guard index > 0, index <= words.count, let key = SecuritySettings.Key(rawValue: words[index - 1]) else { return [] }
        return switch key {
        case .cacheExpiry: ["1h", "4h", "8h", "24h", "48h"]
        case .reuseWindow: ["0s", "30s", "1m", "5m"]
        case .maxTries: (1...10).map(String.init)
        case .scanTimeout: ["10s", "30s", "1m", "2m"]
        case .clipClear: ["10s", "45s", "1m", "2m"]
        case .historyLimit: ["0", "5", "10", "20", "50"]
        case .trashKeep: ["24h", "168h", "720h", "2160h"]
        }
    }

    static func key(_ name: String) throws -> SecuritySettings.Key {
        guard let key = SecuritySettings.Key(rawValue: name) else {
            let names = SecuritySettings.Key.allCases.map(\.rawValue)
            let hint = Suggestion.didYouMean(name, among: names) ?? "use one of: \(names.joined(separator: ", "))."
            throw ValidationError("Unknown setting '\(name)'; \(hint)")
        }
        return key
    }

    struct Get: FingerlockCommand {
        static let configuration = CommandConfiguration(
            commandName: "get", abstract: "Print one setting, or all of them.",
            discussion: """
                --json prints one object with the settings asked for as numbers, in the key style of every \
                --json: durations in seconds ({"cacheExpirySeconds": 28800, "maxTries": 3, …}), which \
                `config set cache-expiry 28800s` takes back.
                """)

        @OptionGroup var global: GlobalOptions
        @OptionGroup var passcode: PasscodeOptions
        @Argument(help: ConfigCommand.keyHelp, completion: ConfigCommand.keyCompletion) var key: String?
        @Flag(name: .long, help: "Print a JSON object {setting: value}.") var json = false
        var jsonOutput: Bool { json }

        func validate() throws { if let key { _ = try ConfigCommand.key(key) } }

        /// `cache-expiry` → `cacheExpirySeconds`, `max-tries` → `maxTries`: camelCase as in every
        /// --json, with the unit in the name as in `status --json`.
        static func jsonKey(_ key: SecuritySettings.Key) -> String {
            let words = key.rawValue.split(separator: "-")
            let name = words.enumerated().map { $0.offset == 0 ? String($0.element) : $0.element.prefix(1).uppercased() + $0.element.dropFirst() }
                .joined()
            return key.isDuration ? name + "Seconds" : name
        }

        func run(with dependencies: CLIDependencies) async throws {
            let session = try await AuthSession(
                global: global, passcode: passcode, dependencies: dependencies, needsReader: false, json: json)
            let settings = try await SettingsEditor(session.environment).settings()
            if json {
                // Numbers, as every --json gives them; `config set KEY <seconds>s` takes a duration back.
                let keys = try key.map { [try ConfigCommand.key($0)] } ?? SecuritySettings.Key.allCases
                try dependencies.console.printJSON(Dictionary(uniqueKeysWithValues: keys.map { (Self.jsonKey($0), settings.amount($0)) }))
            } else if let key {
                dependencies.console.print(settings.value(try ConfigCommand.key(key)))
            } else {
                for key in SecuritySettings.Key.allCases {
                    dependencies.console.print("\(key.rawValue) = \(settings.value(key))")
                }
            }
        }
    }

    struct Set: FingerlockCommand {
        static let configuration = CommandConfiguration(
            commandName: "set", abstract: "Change one setting (needs the passcode).")

        @OptionGroup var global: GlobalOptions
        @OptionGroup var passcode: PasscodeOptions
        @Argument(help: ConfigCommand.keyHelp, completion: ConfigCommand.keyCompletion) var key: String
        @Argument(
            help: ArgumentHelp("A duration (8h, 30m, 45s) or a number of tries.", valueName: "value"),
            completion: .custom { words, index, prefix in
                ConfigCommand.valueCompletions(words, index).filter { $0.hasPrefix(ShellWord.dequoted(prefix)) }
            })
        var value: String

        func validate() throws {
            var probe = SecuritySettings()
            do {
                try probe.set(try ConfigCommand.key(key), to: value)
            } catch let error as AuthError {
                throw ValidationError(error.message)
            }
        }

        func run(with dependencies: CLIDependencies) async throws {
            let key = try ConfigCommand.key(self.key)
            let session = try await AuthSession(global: global, passcode: passcode, dependencies: dependencies, needsReader: false)
            let settings = try await SettingsEditor(session.environment).changeSetting(key, to: value)
            dependencies.console.print("\(key.rawValue) = \(settings.value(key))")
        }
    }
}

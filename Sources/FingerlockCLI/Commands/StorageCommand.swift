import ArgumentParser
import Auth
import AuthCore
import Fingerprint
import Foundation

/// The prints a match-on-chip reader keeps on its own storage, fingerlock's and other programs'
/// (fprintd's may be the desktop login): `fprintd-list` and `fprintd-delete` for the chip.
struct StorageCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "storage",
        abstract: "List, delete or clear the prints a reader keeps on its own storage (needs the passcode).",
        discussion: """
            Match-on-chip readers store prints on the reader itself, and every program shares that storage: \
            fingerlock's prints of this vault or another one, and fprintd's (which may be your desktop login). \
            A full reader, or a print left by another program or a lost vault, can block `enroll`; these \
            commands show whose each print is and remove one, or all, after saying what else stops working.
            """,
        subcommands: [List.self, Delete.self, Clear.self])

    struct List: FingerlockCommand {
        static let configuration = CommandConfiguration(
            commandName: "list", abstract: "List the prints stored on the reader, and whose each one is.")

        @OptionGroup var global: GlobalOptions
        @OptionGroup var passcode: PasscodeOptions
        @Flag(name: .long, help: "Print a JSON array of {id, reader, owner, vault, finger, user, enrolled}.") var json = false
        var jsonOutput: Bool { json }

        /// One stored print; every key is always present (null when the reader did not record it).
        /// `user` is the chip's text as stored, not escaped for a terminal.
        struct Entry: Encodable {
            var id: String
            var reader: String
            var owner: String
            var vault: String?
            var finger: String?
            var user: String?
            var enrolled: Date?

            enum CodingKeys: String, CodingKey { case id, reader, owner, vault, finger, user, enrolled }

            func encode(to encoder: any Encoder) throws {
                var container = encoder.container(keyedBy: CodingKeys.self)
                try container.encode(id, forKey: .id)
                try container.encode(reader, forKey: .reader)
                try container.encode(owner, forKey: .owner)
                try container.encode(vault, forKey: .vault)
                try container.encode(finger, forKey: .finger)
                try container.encode(user, forKey: .user)
                try container.encode(enrolled, forKey: .enrolled)
            }
        }

        func run(with dependencies: CLIDependencies) async throws {
            let session = try await AuthSession(global: global, passcode: passcode, dependencies: dependencies, json: json)
            let storage = try await ReaderStorageManagement(session.environment).readerStorage()
            let console = dependencies.console
            if json {
                try console.printJSON(storage.entries.map(Entry.init))
                return
            }
            let reader = storage.reader
            guard !storage.entries.isEmpty else {
                console.print("\(reader.name) (\(reader.identity)) stores no prints.")
                return
            }
            console.print(console.bold("\(reader.identity)") + "  \(reader.name): \(storage.entries.count) stored print(s)")
            for entry in storage.entries {
                let day = entry.print.enrolled.map { "  " + console.dim("enrolled \(UTCDay.string($0))") } ?? ""
                console.print("  \(entry.print.id)  \(TerminalSafeText.line(entry.summary))\(day)")
            }
        }
    }

    struct Delete: FingerlockCommand {
        static let configuration = CommandConfiguration(
            commandName: "delete",
            abstract: "Delete one print from the reader's storage (asks first, naming what stops working).",
            discussion: "Your own fingers are removed with `fingerlock forget FINGER`, which also updates the vault.")

        @OptionGroup var global: GlobalOptions
        @OptionGroup var passcode: PasscodeOptions
        @Argument(help: ArgumentHelp("The print's id from `fingerlock storage list` (at least 4 hex digits).", valueName: "id"))
        var id: String
        @Flag(name: .long, help: "Do not ask for confirmation (scripts); the print may be another program's.") var yes = false

        func run(with dependencies: CLIDependencies) async throws {
            let session = try await AuthSession(global: global, passcode: passcode, dependencies: dependencies)
            let yes = self.yes
            let deleted = try await ReaderStorageManagement(session.environment).deleteStoredPrint(id: id) { entry in
                if yes { return true }
                return try await Confirmation.ask(
                    "Delete \(entry.print.id), \(TerminalSafeText.line(entry.summary))? \(TerminalSafeText.line(entry.consequence))",
                    terminal: dependencies.openTerminal(),
                    unlessFlag: "--yes (\(TerminalSafeText.line(entry.consequence)))")
            }
            guard let deleted else { throw CLIError(.cancelled, "Not deleted.") }
            dependencies.console.print("Deleted \(deleted.print.id), \(TerminalSafeText.line(deleted.summary)).")
        }
    }

    struct Clear: FingerlockCommand {
        static let configuration = CommandConfiguration(
            commandName: "clear",
            abstract: "Delete every print on the reader's storage, every program's (asks first, naming what stops working).")

        @OptionGroup var global: GlobalOptions
        @OptionGroup var passcode: PasscodeOptions
        @Flag(name: .long, help: "Do not ask for confirmation (scripts); other programs' prints go too.") var yes = false

        func run(with dependencies: CLIDependencies) async throws {
            let session = try await AuthSession(global: global, passcode: passcode, dependencies: dependencies)
            let yes = self.yes
            let cleared = try await ReaderStorageManagement(session.environment).clearReaderStorage { storage in
                // Nothing listed, nothing anyone could lose: no question to ask.
                if yes || storage.entries.isEmpty { return true }
                return try await Confirmation.ask(
                    Self.question(storage), terminal: dependencies.openTerminal(),
                    unlessFlag: "--yes (\(Self.consequences(storage)))")
            }
            guard let cleared else { throw CLIError(.cancelled, "Nothing was deleted.") }
            let console = dependencies.console
            console.print("Cleared \(cleared.reader.identity): \(cleared.deleted.count) print(s) deleted.")
            if !cleared.forgotten.isEmpty {
                console.print(
                    "Forgot \(cleared.forgotten.map(\.rawValue).joined(separator: ", ")) here too; enroll again to use the reader.")
            }
        }

        static func question(_ storage: ReaderStorageManagement.ReaderStorage) -> String {
            let list = storage.entries.map { "  \($0.print.id)  \(TerminalSafeText.line($0.summary))" }.joined(separator: "\n")
            let header = "Delete all \(storage.entries.count) print(s) stored on \(storage.reader.identity)?"
            return [header, list, consequences(storage)].filter { !$0.isEmpty }.joined(separator: "\n")
        }

        /// One sentence per kind of owner: what stops working.
        static func consequences(_ storage: ReaderStorageManagement.ReaderStorage) -> String {
            var seen = Set<String>()
            let sentences = storage.entries.map(\.consequence).filter { seen.insert($0).inserted }
            return sentences.isEmpty ? "The reader stores nothing." : TerminalSafeText.line(sentences.joined(separator: " "))
        }
    }
}

extension StorageCommand.List.Entry {
    init(_ entry: ReaderStorageManagement.StoredPrintEntry) {
        var vault: String?
        switch entry.owner {
        case .otherVault(let tag): vault = tag
        case .thisVault, .leftOver, .foreign: vault = nil
        }
        self.init(
            id: entry.print.id, reader: entry.print.reader.description, owner: entry.owner.kind, vault: vault,
            finger: (entry.print.finger ?? entry.print.known?.finger)?.rawValue, user: entry.user, enrolled: entry.print.enrolled)
    }
}

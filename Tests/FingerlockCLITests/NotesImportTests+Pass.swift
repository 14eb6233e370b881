import FingerlockCLITestSupport
import Foundation
import Testing

/// A real password store, read by the real `pass` and `gpg` (a throwaway key without a passphrase
/// in a GNUPGHOME of the test's own): entries named like pass's options are still entries.
extension NotesImportTests {
    @Test func passEntriesNamedLikeOptionsAreReadAsEntries() async throws {
        let gnupg = scratch + "/gnupg"
        try FileManager.default.createDirectory(atPath: gnupg, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        let store = scratch + "/store"
        let environment = ["PATH": "/usr/bin:/bin", "HOME": scratch, "GNUPGHOME": gnupg, "PASSWORD_STORE_DIR": store]
        try await helper(
            [
                "gpg", "--batch", "--passphrase", "", "--quick-gen-key", "fingerlock test <test@fingerlock.invalid>", "future-default", "default",
                "never",
            ],
            environment: environment)
        try await helper(["pass", "init", "test@fingerlock.invalid"], environment: environment)
        // `-c` is pass's "copy to the clipboard": without `--` the import got the store's listing.
        for (name, secret) in [("-c", "dash secret"), ("--help", "help secret"), ("web/site", "plain secret")] {
            try await helper(["pass", "insert", "--multiline", "--", name], environment: environment, stdin: secret + "\n")
        }
        let runner = try await vault(["GNUPGHOME": gnupg])
        let imported = try await runner.run(["notes", "import", "--format", "pass", store], environment: touch)
        #expect(imported.status == 0, "\(imported.stderr)")
        #expect(imported.stdout == "Imported 3 new notes.\n")
        let bodies = Dictionary(uniqueKeysWithValues: try await export(runner).map { ($0["title"] ?? "", $0["body"] ?? "") })
        #expect(bodies == ["-c": "dash secret\n", "--help": "help secret\n", "web/site": "plain secret\n"])
        try await helper(["gpgconf", "--kill", "all"], environment: environment)
    }
}

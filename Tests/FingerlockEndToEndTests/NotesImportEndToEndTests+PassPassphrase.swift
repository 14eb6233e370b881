import FingerlockCLITestSupport
import Foundation
import Testing

/// A password store whose gpg key has a passphrase: gpg asks for it on the terminal fingerlock runs
/// in (pinentry-curses, here on a pseudo-terminal), and without a terminal the error says what to do.
extension NotesImportEndToEndTests {
    /// A store with one entry, encrypted to a throwaway key with a passphrase, and its environment.
    func passphraseStore() async throws -> (store: String, environment: [String: String]) {
        let gnupg = scratch + "/gnupg-passphrase"
        try FileManager.default.createDirectory(atPath: gnupg, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        // pinentry-curses, whatever the machine's default: it asks on the terminal GPG_TTY names.
        try Data("pinentry-program /usr/bin/pinentry-curses\n".utf8).write(to: URL(fileURLWithPath: gnupg + "/gpg-agent.conf"))
        let store = scratch + "/passphrase-store"
        let environment = ["PATH": "/usr/bin:/bin", "HOME": scratch, "GNUPGHOME": gnupg, "PASSWORD_STORE_DIR": store]
        try await helper(
            [
                "gpg", "--batch", "--pinentry-mode", "loopback", "--passphrase", "open sesame", "--quick-gen-key",
                "fingerlock test <test@fingerlock.invalid>", "future-default", "default", "never",
            ],
            environment: environment)
        try await helper(["pass", "init", "test@fingerlock.invalid"], environment: environment)
        try await helper(["pass", "insert", "--multiline", "--", "web/site"], environment: environment, stdin: "the secret\n")
        // Encrypting needed no passphrase, so none is cached: the import must ask for it.
        try await helper(["gpgconf", "--kill", "gpg-agent"], environment: environment)
        return (store, environment)
    }

    @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/pinentry-curses")))
    func aKeyWithAPassphraseIsAskedForOnTheTerminal() async throws {
        let (store, gpg) = try await passphraseStore()
        let runner = try await vault(["GNUPGHOME": gpg["GNUPGHOME"]!])
        let session = try PseudoTerminalSession(
            arguments: ["notes", "import", "--format", "pass", store],
            environment: runner.environment.merging(touch) { $1 }.merging(["TERM": "vt100"]) { $1 })
        #expect(await session.expect("Passphrase", timeout: .seconds(20)))
        try await Task.sleep(for: .milliseconds(300))
        session.send("open sesame\r")
        #expect(await session.expect("Imported 1 new note.", timeout: .seconds(30)))
        #expect(await session.waitForExit() == 0, "\(session.output)")
        let bodies = try await export(runner).map { $0["body"] ?? "" }
        #expect(bodies == ["the secret\n"])
        try await helper(["gpgconf", "--kill", "all"], environment: gpg)
    }

    @Test func withoutATerminalTheErrorSaysWhatToDo() async throws {
        let (store, gpg) = try await passphraseStore()
        let runner = try await vault(["GNUPGHOME": gpg["GNUPGHOME"]!])
        let result = try await runner.run(["notes", "import", "--format", "pass", store], environment: touch)
        #expect(result.status == 6)
        #expect(result.stderr.hasPrefix("fingerlock: pass show web/site failed (gpg: "), "\(result.stderr)")
        #expect(
            result.stderr.hasSuffix(
                "; if its key has a passphrase, gpg had no terminal to ask for it: run `pass show web/site` in a terminal first (gpg-agent then keeps the passphrase a while), or import from a terminal; nothing was imported.\n"
            ))
        #expect(result.stderr.split(separator: "\n").count == 1)
        #expect(try await list(runner).isEmpty)
        try await helper(["gpgconf", "--kill", "all"], environment: gpg)
    }
}

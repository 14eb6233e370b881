import FingerlockTestSupport
import Foundation
import Testing

@testable import Vault

#if canImport(Glibc)
    import Glibc
#endif

/// Where a backup may go: never over an existing file unless asked, never over anything but a
/// regular file, and errors name the file asked for, not the temporary one beside it.
@Suite(.timed) struct VaultBackupTargetTests {
    @Test func anExistingFileIsKeptUnlessReplacingIsAsked() throws {
        try withScratch { dir in
            let (vault, _) = try makeVault(dir)
            defer { vault.close() }
            try vault.add(title: "t", body: "b")
            let target = dir + "/backup"
            try Data("precious".utf8).write(to: URL(fileURLWithPath: target))
            let refused = expectVaultError(.alreadyExists) { try vault.backup(to: target) }
            #expect(refused?.message.contains("--force") == true)
            #expect(try String(contentsOfFile: target, encoding: .utf8) == "precious")
            #expect(try FileManager.default.contentsOfDirectory(atPath: dir).sorted() == ["backup", "vault"])
            // The count is the copy's own.
            #expect(try vault.backup(to: target, replacing: true) == 1)
            #expect(try Data(contentsOf: URL(fileURLWithPath: target)).prefix(6) == Data("SQLite".utf8))
        }
    }

    @Test func specialFilesAndDirectoriesAreNeverReplaced() throws {
        try withScratch { dir in
            let (vault, _) = try makeVault(dir)
            defer { vault.close() }
            let fifo = dir + "/fifo"
            #expect(mkfifo(fifo, 0o600) == 0)
            for replacing in [false, true] {
                let error = expectVaultError(.invalidInput) { try vault.backup(to: fifo, replacing: replacing) }
                #expect(error?.message.contains("not a regular file") == true)
                expectVaultError(.invalidInput) { try vault.backup(to: dir, replacing: replacing) }
            }
            var info = stat()
            #expect(lstat(fifo, &info) == 0 && info.st_mode & S_IFMT == S_IFIFO)
        }
    }

    @Test func errorsNeverNameTheTemporaryFile() throws {
        try withScratch { dir in
            let (vault, _) = try makeVault(dir)
            defer { vault.close() }
            // procfs refuses new files to everyone, root included: the temporary file cannot be made.
            let target = "/proc/self/fingerlock-backup"
            let error = expectVaultError(.io) { try vault.backup(to: target) }
            #expect(error?.message.contains(target) == true)
            #expect(error?.message.contains(".tmp-") == false)
        }
    }
}

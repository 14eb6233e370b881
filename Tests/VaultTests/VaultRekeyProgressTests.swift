import FingerlockTestSupport
import Foundation
import Testing
import Vault

/// `rekey` says how far it got, for a progress bar on a large vault.
@Suite("Vault rekey progress", .timed)
struct VaultRekeyProgressTests {
    @Test("every note re-sealed is reported once, against the whole count, and all still open")
    func reportsEachNote() throws {
        try withScratch { dir in
            let (vault, _) = try makeVault(dir)
            defer { vault.close() }
            let notes = (0..<7).map { Note(title: "n\($0)", body: "b\($0)", created: Date(), modified: Date()) }
            try vault.add(notes)
            var reports: [(Int, Int)] = []
            _ = try vault.rekey(passcode: passcode, sealer: VaultPasscodeSealer(), cost: testCost) { reports.append(($0, $1)) }
            #expect(reports.map(\.0) == Array(1...7))
            #expect(reports.allSatisfy { $0.1 == 7 })
            #expect(try vault.allNotes().map(\.body).sorted() == (0..<7).map { "b\($0)" })
        }
    }
}

/// A restore checks the backup whole first, and says how far it got.
@Suite("Vault restore progress", .timed)
struct VaultRestoreProgressTests {
    @Test("staging a backup reports each note checked, against the whole count")
    func reportsEachNoteChecked() throws {
        try withScratch { dir in
            let (vault, _) = try makeVault(dir)
            try vault.add((0..<5).map { Note(title: "n\($0)", body: "b\($0)", created: Date(), modified: Date()) })
            _ = try vault.backup(to: dir + "/backup")
            vault.close()
            var reports: [(Int, Int)] = []
            let staged = try Vault.stageRestore(
                from: dir + "/backup", into: dir + "/vault", using: .passcode(passcode), configuration: configuration()
            ) { reports.append(($0, $1)) }
            staged.discard()
            #expect(reports.map(\.0) == Array(1...5))
            #expect(reports.allSatisfy { $0.1 == 5 })
        }
    }
}

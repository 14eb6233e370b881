import Foundation
import Testing
import Vault

/// `rekey` says how far it got, for a progress bar on a large vault.
@Suite("Vault rekey progress")
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

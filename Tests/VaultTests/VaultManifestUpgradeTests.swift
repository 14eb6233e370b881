import FingerlockTestSupport
import Foundation
import Testing
import Vault

/// Vaults written before per-bucket note tallies hold a version-1 manifest: they must keep opening,
/// their single reads must still catch a rolled-back note, and the next write upgrades them.
@Suite("Vault manifest version 1", .timed)
struct VaultManifestUpgradeTests {
    /// A vault with a few notes (one updated, so revisions differ), a setting and a template,
    /// whose manifest is then rewritten in the version-1 layout.
    func makeVersion1Vault(_ dir: String) throws -> (key: String, notes: [Note], old: StoredNoteRow) {
        let (vault, _) = try makeVault(dir)
        var notes: [Note] = []
        for sample in sampleNotes(12) {
            notes.append(try vault.add(title: sample.title, body: sample.body, tags: sample.tags))
        }
        let old = try storedNoteRow(notes[3].id, dir)
        notes[3].body = "edited"
        notes[3] = try vault.update(notes[3])
        try vault.setSetting("8h", for: "cache-expiry")
        try vault.putTemplate(Data([7]), reader: "r:1", finger: "left-thumb")
        try vault.rewriteManifestAsVersion1ForTesting()
        #expect(try vault.manifestVersionForTesting() == 1)
        vault.close()
        return (passcode, notes, old)
    }

    @Test("a version-1 vault opens and reads every note, setting and template")
    func opensAndReads() throws {
        try withScratch { dir in
            let (code, notes, _) = try makeVersion1Vault(dir)
            let vault = try Vault.open(in: dir + "/vault", using: .passcode(code))
            for note in notes { #expect(try vault.note(id: note.id) == note) }
            #expect(try vault.list().count == notes.count)
            #expect(try vault.stringSetting("cache-expiry") == "8h")
            #expect(try vault.template(reader: "r:1", finger: "left-thumb") == Data([7]))
            try vault.verifyIntegrity()
            // Reading does not write: still version 1.
            #expect(try vault.manifestVersionForTesting() == 1)
        }
    }

    @Test("a rolled-back note in a version-1 vault is caught by a single read, and blocks the upgrade")
    func rollbackCaught() throws {
        try withScratch { dir in
            let (code, notes, old) = try makeVersion1Vault(dir)
            try putBack(old, of: notes[3].id, dir)
            let vault = try Vault.open(in: dir + "/vault", using: .passcode(code))
            #expect(expectVaultError(.tampered) { try vault.note(id: notes[3].id) }?.part == "note set")
            // Without buckets the whole set is checked, so any single read sees it.
            expectVaultError(.tampered) { try vault.note(id: notes[0].id) }
            expectVaultError(.tampered) { try vault.update(notes[3]) }
            expectVaultError(.tampered) { try vault.deleteNote(id: notes[3].id) }
            // The upgrade would make the rolled-back set authentic: any write is refused.
            expectVaultError(.tampered) { try vault.add(title: "new", body: "note") }
            expectVaultError(.tampered) { try vault.setSetting("1h", for: "cache-expiry") }
            #expect(try vault.manifestVersionForTesting() == 1)
        }
    }

    @Test("the next write upgrades to version 3, after which bucket reads catch a rollback")
    func upgradeOnWrite() throws {
        try withScratch { dir in
            let (code, notes, _) = try makeVersion1Vault(dir)
            let vault = try Vault.open(in: dir + "/vault", using: .passcode(code))
            // A write that touches no note still upgrades the note tallies.
            try vault.setSetting("1h", for: "cache-expiry")
            #expect(try vault.manifestVersionForTesting() == 3)
            for note in notes { #expect(try vault.note(id: note.id) == note) }
            try vault.verifyIntegrity()

            let before = try storedNoteRow(notes[5].id, dir)
            var edited = notes[5]
            edited.body = "changed after the upgrade"
            try vault.update(edited)
            let key = try vault.exportMasterKey()
            vault.close()
            try putBack(before, of: notes[5].id, dir)
            let damaged = try Vault.open(in: dir + "/vault", using: .masterKey(key))
            expectVaultError(.tampered) { try damaged.note(id: notes[5].id) }
            expectVaultError(.tampered) { try damaged.list() }
        }
    }

    @Test("rekey writes a version-3 manifest")
    func rekeyUpgrades() throws {
        try withScratch { dir in
            let (code, notes, _) = try makeVersion1Vault(dir)
            let vault = try Vault.open(in: dir + "/vault", using: .passcode(code))
            _ = try vault.rekey(passcode: code, cost: testCost)
            #expect(try vault.manifestVersionForTesting() == 3)
            for note in notes { #expect(try vault.note(id: note.id) == note) }
            try vault.verifyIntegrity()
        }
    }
}

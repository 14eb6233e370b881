import Crypto
import FingerlockTestSupport
import Foundation
import SafeFiles
import Testing
import Vault

#if canImport(Glibc)
    import Glibc
#endif

/// Tests with real child processes (`vault-stress`, built next to the test bundle).
@Suite("Vault across processes", .timed, .serialized)
struct VaultProcessTests {
    static func stressTool() throws -> String {
        var candidates: [String] = []
        if let executable = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe") {
            candidates.append(URL(fileURLWithPath: executable).deletingLastPathComponent().path + "/vault-stress")
        }
        let packageRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().path
        candidates.append(packageRoot + "/.build/debug/vault-stress")
        return try #require(candidates.first { FileManager.default.isExecutableFile(atPath: $0) })
    }

    /// Starts vault-stress with the key on its stdin; stdout is collected by the returned pipe.
    static func launch(_ arguments: [String], key: SymmetricKey) throws -> (Process, Pipe) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: try stressTool())
        process.arguments = arguments
        let input = Pipe()
        let output = Pipe()
        process.standardInput = input
        process.standardOutput = output
        try process.run()
        input.fileHandleForWriting.write(Data((hex(key) + "\n").utf8))
        try input.fileHandleForWriting.close()
        return (process, output)
    }

    static func body(for title: String) -> String { "body of \(title)\n" + String(repeating: "x", count: 200) }

    @Test("notes whose add returned survive SIGKILL at random moments", .timeLimit(.minutes(1)))
    func crashSafety() throws {
        // Waits of a few milliseconds, kept blocking: waiting for a pool thread again after each
        // of its 100 short sleeps and kills took this test past its minute in a loaded full run.
        try withScratch { dir in
            let (vault, _) = try makeVault(dir)
            let key = try vault.exportMasterKey()
            vault.close()
            var committed: [UUID: String] = [:]
            var generator = SystemRandomNumberGenerator()
            for iteration in 0..<100 {
                let (process, output) = try Self.launch(["add-loop", dir + "/vault", "i\(iteration)"], key: key)
                // From "still starting" to "in the middle of a stream of commits".
                usleep(UInt32.random(in: 2_000...60_000, using: &generator))
                kill(process.processIdentifier, SIGKILL)
                process.waitUntilExit()
                let printed = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
                // Only complete lines: a line cut by the kill was not fully reported.
                for line in printed.split(separator: "\n", omittingEmptySubsequences: true)
                where printed.contains(line + "\n") {
                    let parts = line.split(separator: " ", maxSplits: 1)
                    if parts.count == 2, let id = UUID(uuidString: String(parts[0])) { committed[id] = String(parts[1]) }
                }
            }
            let reopened = try Vault.open(in: dir + "/vault", using: .masterKey(key))
            try reopened.verifyIntegrity()
            for (id, title) in committed {
                let note = try reopened.note(id: id)
                #expect(note.title == title)
                #expect(note.body == Self.body(for: title))
            }
            #expect(try reopened.noteCount() >= committed.count)
            #expect(committed.count > 0)
            print("crash safety: 100 kills, \(committed.count) acknowledged notes, \(try reopened.noteCount()) in the vault")
        }
    }

    @Test("two processes adding 500 notes each end with exactly 1000", .timeLimit(.minutes(1)))
    func concurrentWriters() async throws {
        try await withAsyncScratch { dir in
            let (vault, _) = try makeVault(dir)
            let key = try vault.exportMasterKey()
            let (first, firstOutput) = try Self.launch(["add", dir + "/vault", "500", "A"], key: key)
            let (second, secondOutput) = try Self.launch(["add", dir + "/vault", "500", "B"], key: key)
            try await first.waitForExit()
            try await second.waitForExit()
            #expect(first.terminationStatus == 0 && second.terminationStatus == 0)
            #expect(String(decoding: firstOutput.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self) == "done\n")
            #expect(String(decoding: secondOutput.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self) == "done\n")
            let notes = try vault.allNotes()
            #expect(notes.count == 1000)
            let expected = Set((0..<500).flatMap { ["A-\($0)", "B-\($0)"] })
            #expect(Set(notes.map(\.title)) == expected)
            #expect(notes.allSatisfy { $0.body == Self.body(for: $0.title) })
            try vault.verifyIntegrity()
        }
    }

    @Test("a full disk is reported as such and nothing is changed", .timeLimit(.minutes(1)))
    func diskFull() async throws {
        try await withAsyncScratch { dir in
            let (vault, _) = try makeVault(dir)
            let kept = try vault.add(title: "kept", body: "before the disk filled up")
            let key = try vault.exportMasterKey()
            vault.close()
            let (process, output) = try Self.launch(["disk-full", dir + "/vault"], key: key)
            try await process.waitForExit()
            let printed = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            #expect(process.terminationStatus == 0)
            #expect(printed.hasPrefix("diskFull "), "\(printed)")
            #expect(printed.contains("Nothing was changed"))
            let reopened = try Vault.open(in: dir + "/vault", using: .masterKey(key))
            try reopened.verifyIntegrity()
            #expect(try reopened.allNotes() == [kept])
        }
    }

    @Test("no plaintext reaches any file under the data directory")
    func noPlaintextOnDisk() throws {
        try withScratch { dir in
            let marker = "PLAINTEXT-MARKER-7f3a"
            let (vault, _) = try makeVault(dir)
            var notes: [Note] = []
            for sample in sampleNotes(20, marker: marker) {
                notes.append(try vault.add(title: sample.title, body: sample.body, tags: sample.tags + [marker]))
            }
            var edited = notes[0]
            edited.body = "edited \(marker) " + String(repeating: marker, count: 50)
            try vault.update(edited)
            try vault.deleteNote(id: notes[1].id)
            try vault.putTemplate(Data((marker + " template").utf8), reader: "virtual_image:0", finger: "left-thumb")
            try vault.setSetting(marker, for: "cache-expiry")
            _ = try vault.search(marker)
            // Beside the data directory (never inside it), still under the tree searched below.
            try vault.backup(to: dir + "/backup.fingerlock")
            // While open (WAL and shared memory present) and after close.
            try Self.expectNoMarker(marker, under: dir)
            vault.close()
            try Self.expectNoMarker(marker, under: dir)
        }
    }

    static func expectNoMarker(_ marker: String, under dir: String) throws {
        let needle = Array(marker.utf8)
        let enumerator = try #require(FileManager.default.enumerator(atPath: dir))
        var checked = 0
        while let name = enumerator.nextObject() as? String {
            let path = dir + "/" + name
            var isDirectory: ObjCBool = false
            guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory), !isDirectory.boolValue else {
                continue
            }
            let bytes = try AtomicFile.read(path)
            checked += 1
            let found =
                bytes.count >= needle.count
                && (0...(bytes.count - needle.count)).contains { bytes[$0..<$0 + needle.count].elementsEqual(needle) }
            #expect(!found, "\(name) contains the plaintext marker")
        }
        #expect(checked >= 2)
    }
}

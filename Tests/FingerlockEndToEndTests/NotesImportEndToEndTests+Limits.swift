import FingerlockCLITestSupport
import Foundation
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// `notes import` reads with a bound: a note holds at most 16 MiB, an import at most 256 MiB, and
/// more is refused (exit 6, one line, nothing imported) before it is in memory. Run under an
/// address-space limit well below what reading the inputs whole took, so a whole read dies.
extension NotesImportEndToEndTests {
    /// `prlimit` on the binary: 1 GiB of address space, far above what the bounded reads need.
    static let memoryLimit = ["prlimit", "--as=\(1 << 30)", "--"]
    static let noteLimit = 16 << 20

    @Test func aHugeSparseMarkdownFileIsRefusedQuicklyUnderAMemoryLimit() async throws {
        let runner = try await vault()
        let directory = scratch + "/huge"
        _ = try write("# Kept\nsmall\n", to: "huge/a.md")
        let big = directory + "/big.md"
        #expect(FileManager.default.createFile(atPath: big, contents: nil))
        #expect(truncate(big, 600_000_000) == 0)
        let started = ContinuousClock.now
        let result = try await runner.run(
            ["notes", "import", "--format", "markdown-dir", directory], environment: touch, timeout: .seconds(60),
            launcher: Self.memoryLimit)
        #expect(result.status == 6, "\(result.stderr)")
        #expect(result.stderr == "fingerlock: \(big) is larger than 16 MiB, the most one note may hold; nothing was imported.\n")
        #expect(ContinuousClock.now - started < .seconds(20))
        #expect(try await list(runner).isEmpty)
    }

    @Test func aNoteOfExactlyTheLimitIsReadAndOneByteMoreIsNot() async throws {
        let runner = try await vault()
        let directory = scratch + "/edge"
        _ = try write(String(repeating: "x", count: Self.noteLimit), to: "edge/full.txt")
        let fits = try await runner.run(
            ["notes", "import", "--format", "markdown-dir", directory, "--dry-run"], environment: touch, launcher: Self.memoryLimit)
        #expect(fits.status == 0, "\(fits.stderr)")
        #expect(fits.stdout.hasSuffix("Would import 1 note; dry run, nothing was written.\n"))
        _ = try write(String(repeating: "x", count: Self.noteLimit + 1), to: "edge/full.txt")
        let over = try await runner.run(
            ["notes", "import", "--format", "markdown-dir", directory], environment: touch, launcher: Self.memoryLimit)
        #expect(over.status == 6)
        #expect(over.stderr == "fingerlock: \(directory)/full.txt is larger than 16 MiB, the most one note may hold; nothing was imported.\n")
        #expect(try await list(runner).isEmpty)
    }

    @Test func aJSONEntryOverTheLimitImportsNothing() async throws {
        let runner = try await vault()
        let stamp = "2024-01-02T03:04:05Z"
        func entry(_ body: String) -> String {
            #"{"id": "\#(UUID().uuidString.lowercased())", "title": "t", "body": "\#(body)", "tags": [], "created": "\#(stamp)", "modified": "\#(stamp)"}"#
        }
        let json = "[\(entry("small")), \(entry(String(repeating: "x", count: Self.noteLimit))), \(entry("small"))]"
        let result = try await runner.run(
            ["notes", "import", "--format", "fingerlock-json"], environment: touch, stdin: json, launcher: Self.memoryLimit)
        #expect(result.status == 6)
        #expect(
            result.stderr
                == "fingerlock: Entry 2 of the fingerlock JSON export is larger than 16 MiB, the most one note may hold; nothing was imported.\n")
        #expect(try await list(runner).isEmpty)
    }

    @Test func anEndlessJSONInputIsCutAtTheImportLimit() async throws {
        let runner = try await vault()
        let result = try await runner.run(
            ["notes", "import", "--format", "jrnl-json", "/dev/zero"], environment: touch, timeout: .seconds(60), launcher: Self.memoryLimit)
        #expect(result.status == 6, "\(result.stderr)")
        #expect(
            result.stderr
                == "fingerlock: /dev/zero holds more than 256 MiB, the most one import reads (import it in parts); nothing was imported.\n")
        #expect(try await list(runner).isEmpty)
    }

    @Test func aPassEntryThatPrintsWithoutEndIsCutAtTheNoteLimit() async throws {
        let bin = scratch + "/bin"
        chmod(
            try write(
                """
                #!/bin/sh
                for name; do :; done
                [ "$name" = endless ] && exec yes 'a line of a secret that never ends'
                exec cat "$PASSWORD_STORE_DIR/$name.gpg"
                """, to: "bin/pass"), 0o755)
        let store = scratch + "/store"
        _ = try write("one\n", to: "store/a.gpg")
        _ = try write("", to: "store/endless.gpg")
        let runner = try await vault(["PATH": "\(bin):/usr/bin:/bin"])
        let result = try await runner.run(
            ["notes", "import", "--format", "pass", store], environment: touch, timeout: .seconds(60), launcher: Self.memoryLimit)
        #expect(result.status == 6, "\(result.stderr)")
        #expect(
            result.stderr
                == "fingerlock: What pass show endless printed is larger than 16 MiB, the most one note may hold; nothing was imported.\n")
        #expect(try await list(runner).isEmpty)
    }

    @Test func aSymbolicLinkInAMarkdownDirectoryIsRefusedNotFollowed() async throws {
        let runner = try await vault()
        let directory = scratch + "/linked"
        _ = try write("# Kept\nsmall\n", to: "linked/a.md")
        // fingerlock's own environment, and a file outside the directory.
        #expect(symlink("/proc/self/environ", directory + "/env.txt") == 0)
        let environ = try await runner.run(["notes", "import", "--format", "markdown-dir", directory], environment: touch)
        #expect(environ.status == 6)
        #expect(
            environ.stderr
                == "fingerlock: \(directory)/env.txt is a symbolic link: markdown-dir reads only regular files in the directory, never through a link (copy the file in instead); nothing was imported.\n"
        )
        #expect(unlink(directory + "/env.txt") == 0)
        let outside = try write("# Outside\nnot for this vault\n", to: "outside.md")
        #expect(symlink(outside, directory + "/z.md") == 0)
        let elsewhere = try await runner.run(["notes", "import", "--format", "markdown-dir", directory], environment: touch)
        #expect(elsewhere.status == 6)
        #expect(elsewhere.stderr.hasPrefix("fingerlock: \(directory)/z.md is a symbolic link: "))
        #expect(elsewhere.stderr.split(separator: "\n").count == 1)
        #expect(try await list(runner).isEmpty)
        // A link without a note's extension is left out and counted, as any other such file.
        #expect(unlink(directory + "/z.md") == 0)
        #expect(symlink(outside, directory + "/picture.png") == 0)
        let counted = try await runner.run(["notes", "import", "--format", "markdown-dir", directory], environment: touch)
        #expect(counted.stdout == "Imported 1 note (1 other file ignored).\n", "\(counted.stderr)")
    }
}

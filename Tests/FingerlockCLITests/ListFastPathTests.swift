import ArgumentParser
import FingerlockTestSupport
import Testing
import Vault

@testable import FingerlockCLI

#if canImport(Glibc)
    import Glibc
#endif

/// `notes list`'s fast parser (see `ListRequest`) against ArgumentParser: wherever it answers, it
/// answers as ArgumentParser does; everything else it leaves alone.
@Suite("List fast path", .timed)
struct ListFastPathTests {
    /// The request ArgumentParser makes of a command line, or nil when it rejects it (parse or
    /// validation) or parses another command.
    static func parsedByArgumentParser(_ arguments: [String]) -> ListRequest? {
        let command = try? Fingerlock.parseAsRoot(FingerlockMain.hoistingGlobalOptions(arguments))
        return (command as? NotesCommand.List)?.request
    }

    static func parsedFast(_ arguments: [String]) -> ListRequest? {
        ListRequest(fastParsing: FingerlockMain.hoistingGlobalOptions(arguments))
    }

    @Test(
        "the usual command lines take the fast path and mean what ArgumentParser says",
        arguments: [
            ["notes", "list"], ["notes", "ls"], ["notes", "list", "--json"], ["--data-dir", "/tmp/d", "notes", "list"],
            ["--reader=virtual_device", "notes", "ls", "--json"], ["notes", "list", "--reader", "simulated", "--data-dir=/x y"],
            ["notes", "list", "--socket", "/run/s", "--passcode-stdin"], ["notes", "list", "--passcode-fd", "0"],
            ["notes", "list", "--tag", "work"], ["notes", "list", "--tag=#work", "--tag", "Home", "--tag", "work"],
            ["notes", "list", "-n", "5"], ["notes", "list", "--max-count", "20", "--sort", "title"], ["notes", "list", "--max-count=1"],
            ["notes", "list", "--sort=created", "--json", "--tag", "a b"], ["notes", "list", "--sort", "modified", "-n", "3"],
            ["--data-dir", "/d", "--reader", "auto", "notes", "ls", "--passcode-stdin", "--json", "-n", "100000"],
            ["notes", "list", "--tag", "list"], ["notes", "list", "--data-dir", "ls"],
            // The everyday verbs at the top level.
            ["ls"], ["list", "--json"], ["--data-dir", "/d", "ls", "-n", "2", "--tag", "work"],
        ])
    func usualLines(arguments: [String]) throws {
        let fast = try #require(Self.parsedFast(arguments))
        #expect(fast == Self.parsedByArgumentParser(arguments))
    }

    @Test(
        "anything unusual is left to ArgumentParser",
        arguments: [
            [], ["notes"], ["lst"], ["ls", "bank"], ["ls", "--tree"], ["notes", "list", "bank/"], ["notes", "search", "x"],
            ["notes", "list", "--help"], ["notes", "list", "-h"],
            ["help", "notes", "list"], ["notes", "list", "extra"], ["notes", "list", "--", "x"], ["notes", "list", "--since", "2024-01-01"],
            ["notes", "list", "--until=2024-01-01"], ["notes", "list", "--json", "--json"], ["notes", "list", "--json=true"],
            ["notes", "list", "--tag"], ["notes", "list", "--tag", ""], ["notes", "list", "--tag", " # "], ["notes", "list", "--tag", "-x"],
            ["notes", "list", "-n"], ["notes", "list", "-n", "0"], ["notes", "list", "-n", "-3"], ["notes", "list", "-n5"],
            ["notes", "list", "-n=5"], ["notes", "list", "-n", "five"], ["notes", "list", "-n", "1", "--max-count", "2"],
            ["notes", "list", "--sort", "size"], ["notes", "list", "--sort", "Title"], ["notes", "list", "--reader"],
            ["notes", "list", "--reader", "synaptics", "--reader", "goodixmoc"], ["notes", "list", "--data-dir", "--json"],
            ["notes", "list", "--passcode-stdin", "--passcode-fd", "0"], ["notes", "list", "--passcode-fd", "x"],
            ["notes", "list", "--passcode-fd", "99999"], ["notes", "list", "-"], ["notes", "list", "--version"],
            ["notes", "list", "--generate-completion-script", "bash"], ["notes", "list", "--limit", "3"],
        ])
    func unusualLines(arguments: [String]) {
        #expect(Self.parsedFast(arguments) == nil)
    }

    @Test(
        "wherever it answers, ArgumentParser answers the same",
        arguments: [
            ["notes", "LIST"], ["NOTES", "list"], ["notes", "list", "-n", "+5"], ["notes", "list", "-n", "05"],
            ["notes", "list", "--max-count", " 5"], ["notes", "list", "--tag", " spaced "], ["notes", "list", "--tag=a=b"],
            ["notes", "list", "--data-dir=a=b"], ["notes", "list", "--JSON"], ["notes", "list", "--sort", " title"],
            ["--reader", "synaptics", "--reader", "goodixmoc", "notes", "list"], ["--data-dir=/d", "notes", "list", "--data-dir", "/e"],
            ["notes", "list", "--passcode-fd=+0"], ["notes", "list", "--tag", "Work", "--tag", "WORK"],
        ])
    func agreement(arguments: [String]) {
        guard let fast = Self.parsedFast(arguments) else { return }
        #expect(fast == Self.parsedByArgumentParser(arguments))
    }

    @Test("some lines it declines are still good commands, which ArgumentParser runs")
    func declinedButValid() {
        #expect(Self.parsedByArgumentParser(["notes", "list", "--since", "2024-01-01"])?.query.since == "2024-01-01")
        #expect(Self.parsedByArgumentParser(["notes", "list", "--until=2024-02-29", "-n", "2"])?.query.maxCount == 2)
        #expect(Self.parsedFast(["notes", "list", "--until=2024-02-29", "-n", "2"]) == nil)
    }

    @Test("the values it reads")
    func values() throws {
        let request = try #require(
            Self.parsedFast(
                [
                    "--data-dir", "/srv/notes", "notes", "ls", "--reader=virtual_device:0", "--tag", "#Work", "-n", "7", "--sort", "title",
                    "--passcode-stdin", "--json",
                ]))
        #expect(request.global == GlobalSettings(reader: "virtual_device:0", dataDir: "/srv/notes"))
        #expect(request.passcodeDescriptor == 0)
        #expect(request.query == NoteQuery(tags: ["#Work"], sort: .title, maxCount: 7))
        #expect(request.json)
        #expect(try request.query.filter().tags == ["Work"])
        let bare = try #require(Self.parsedFast(["notes", "list"]))
        #expect(bare == ListRequest(global: GlobalSettings(), passcodeDescriptor: nil, query: NoteQuery(), json: false))
    }

    @Test("--passcode-fd must name an open descriptor, as PasscodeOptions checks")
    func passcodeDescriptor() throws {
        let fd: Int32 = 902
        openPipeEnd(at: fd)
        let line = ["notes", "list", "--passcode-fd", String(fd)]
        let open = try #require(Self.parsedFast(line))
        #expect(open.passcodeDescriptor == fd)
        #expect(open == Self.parsedByArgumentParser(line))
        close(fd)
        #expect(Self.parsedFast(line) == nil)
        #expect(Self.parsedByArgumentParser(line) == nil)
    }
}

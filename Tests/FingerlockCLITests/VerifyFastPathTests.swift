import ArgumentParser
import FingerlockTestSupport
import Fingerprint
import Testing

@testable import FingerlockCLI

#if canImport(Glibc)
    import Glibc
#endif

/// `verify`'s fast parser (see `VerifyRequest`) against ArgumentParser: wherever it answers, it answers
/// as ArgumentParser does; everything else it leaves alone.
@Suite("Verify fast path", .timed)
struct VerifyFastPathTests {
    /// The request ArgumentParser makes of a command line, or nil when it rejects it or parses another command.
    static func parsedByArgumentParser(_ arguments: [String]) -> VerifyRequest? {
        let command = try? Fingerlock.parseAsRoot(FingerlockMain.hoistingGlobalOptions(arguments))
        return (command as? VerifyCommand)?.request
    }

    static func parsedFast(_ arguments: [String]) -> VerifyRequest? {
        VerifyRequest(fastParsing: FingerlockMain.hoistingGlobalOptions(arguments))
    }

    @Test(
        "the usual command lines take the fast path and mean what ArgumentParser says",
        arguments: [
            ["verify"], ["verify", "any"], ["verify", "right-index-finger"], ["verify", "left-thumb"],
            ["--reader", "virtual_device", "verify"], ["--reader=virtual_device", "verify", "right-thumb"],
            ["--data-dir", "/tmp/d", "verify"], ["--data-dir=/tmp/d", "--reader", "simulated", "verify", "any"],
            ["verify", "--reader", "simulated:0", "--data-dir", "/x y/z"], ["verify", "right-ring-finger", "--reader=auto"],
            ["verify", "--passcode-stdin"], ["verify", "--passcode-fd", "0", "left-little-finger"], ["verify", "--passcode-fd=0"],
            ["--reader", "virtual_device", "--data-dir", "/d", "verify", "right-index-finger", "--passcode-stdin"],
            ["verify", "--reader", "elanspi"], ["verify", "--data-dir", "any"],
        ])
    func usualLines(arguments: [String]) throws {
        let fast = try #require(Self.parsedFast(arguments))
        #expect(fast == Self.parsedByArgumentParser(arguments))
    }

    @Test(
        "anything unusual is left to ArgumentParser",
        arguments: [
            [], ["fingers"], ["verify", "--help"], ["verify", "-h"], ["help", "verify"], ["verify", "help"],
            ["verify", "--", "left-thumb"], ["verify", "thumb"], ["verify", "left-thumb", "right-thumb"],
            ["verify", "--json"], ["verify", "--reader"], ["verify", "--reader", "--data-dir", "/d"],
            ["verify", "--reader="], ["verify", "--data-dir", "-d"], ["verify", "--reader", "synaptics", "--reader", "goodixmoc"],
            ["verify", "--passcode-stdin", "--passcode-stdin"], ["verify", "--passcode-stdin=yes"],
            ["verify", "--passcode-stdin", "--passcode-fd", "0"], ["verify", "--passcode-fd", "-1"],
            ["verify", "--passcode-fd", "x"], ["verify", "--passcode-fd", "99999"], ["verify", "-"],
            ["verify", "--generate-completion-script", "bash"], ["verify", "--version"],
        ])
    func unusualLines(arguments: [String]) {
        #expect(Self.parsedFast(arguments) == nil)
    }

    @Test(
        "wherever it answers, ArgumentParser answers the same",
        arguments: [
            ["verify", "ANY"], ["verify", "Any"], ["verify", "LEFT-THUMB"], ["verify", "left-index"], ["verify", "left_thumb"],
            ["verify", "--passcode-fd=+0"], ["verify", "--passcode-fd", "00"], ["verify", "--passcode-fd", " 0"],
            ["verify", "--reader", " virtual_device"], ["verify", "--data-dir=a=b"], ["verify", "--reader=x=y"],
            ["verify", "--READER", "x"], ["VERIFY"], ["verify", "--reader", "x", "right-thumb", "--data-dir", "/d"],
            ["--reader", "synaptics", "--reader", "goodixmoc", "verify"], ["--data-dir=/d", "verify", "--data-dir", "/e"],
            ["verify", "right-thumb", "--", "--reader"], ["verify", "--passcode-stdin", "any"],
        ])
    func agreement(arguments: [String]) {
        guard let fast = Self.parsedFast(arguments) else { return }
        #expect(fast == Self.parsedByArgumentParser(arguments))
    }

    @Test("some lines it declines are still good commands, which ArgumentParser runs")
    func declinedButValid() {
        #expect(Self.parsedByArgumentParser(["verify", "--", "left-thumb"])?.finger == .leftThumb)
        #expect(Self.parsedByArgumentParser(["verify", "--reader", "synaptics", "--reader", "goodixmoc"]) != nil)
        #expect(Self.parsedFast(["verify", "--", "left-thumb"]) == nil)
    }

    @Test("the values it reads")
    func values() throws {
        let request = try #require(
            Self.parsedFast(
                ["--data-dir", "/srv/notes", "verify", "--reader=virtual_device:0", "left-middle-finger", "--passcode-stdin"]))
        #expect(request.global == GlobalSettings(reader: "virtual_device:0", dataDir: "/srv/notes"))
        #expect(request.finger == .leftMiddle)
        #expect(request.passcodeDescriptor == 0)
        let any = try #require(Self.parsedFast(["verify", "any"]))
        #expect(any == VerifyRequest(global: GlobalSettings(), passcodeDescriptor: nil, finger: nil))
    }

    @Test("--passcode-fd must name an open descriptor, as PasscodeOptions checks")
    func passcodeDescriptor() throws {
        let fd: Int32 = 901
        openPipeEnd(at: fd)
        let line = ["verify", "--passcode-fd", String(fd)]
        let open = try #require(Self.parsedFast(line))
        #expect(open.passcodeDescriptor == fd)
        #expect(open == Self.parsedByArgumentParser(line))
        // Close-on-exec: not inherited, so one of this process's own (the runtime's), not the caller's.
        #expect(fcntl(fd, F_SETFD, FD_CLOEXEC) == 0)
        #expect(Self.parsedFast(line) == nil)
        #expect(Self.parsedByArgumentParser(line) == nil)
        close(fd)
        #expect(Self.parsedFast(line) == nil)
        #expect(Self.parsedByArgumentParser(line) == nil)
    }
}

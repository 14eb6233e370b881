import FingerlockCLITestSupport
import FingerlockTestSupport
import Foundation
import Testing

@testable import FingerlockCLI

/// `--reader` is checked by every command, also those that open no reader: a driver the installed
/// libfprint does not have is a usage error before anything else happens.
@Suite(.timed, .timeLimit(.minutes(1))) struct ReaderOptionTests {
    let runner = InProcessCLI(extraEnvironment: ["FINGERLOCK_READER": "simulated"])

    @Test func anUnknownDriverIsRefusedByEveryCommand() async throws {
        try await runner.setPasscode()
        let commands: [[String]] = [
            ["status"], ["ls"], ["notes", "list"], ["config", "get"], ["lock"], ["tpm", "status"], ["readers"], ["doctor"], ["verify"],
            ["system", "status"], ["fingers"], ["show", "x"],
        ]
        for command in commands {
            let result = try await runner.run(command + ["--reader", "foo"])
            #expect(result.status == 64, "\(command): \(result.stdout) \(result.stderr)")
            #expect(
                result.stderr.hasPrefix("fingerlock: --reader foo: libfprint has no driver \"foo\": `fingerlock readers` lists"),
                "\(command): \(result.stderr)")
        }
        // The fast parsers of ls and verify leave it to ArgumentParser, which refuses it as above.
        #expect(ListRequest(fastParsing: ["ls", "--reader", "foo"]) == nil)
        #expect(VerifyRequest(fastParsing: ["verify", "--reader", "foo"]) == nil)
        #expect(ListRequest(fastParsing: ["ls", "--reader", "synaptics"]) != nil)
        // The lock above was refused: the key is still cached.
        #expect(try await runner.run(["status", "--json"]).stdout.contains("\"unlocked\" : true"))
    }

    @Test func aDriverATypoAwayIsNamedAndRealDriversPass() throws {
        #expect(throws: CLIError.self) { try ReaderChoice.validate("synaptic") }
        do {
            try ReaderChoice.validate("synaptic")
        } catch {
            #expect(error.message == "--reader synaptic: libfprint has no driver \"synaptic\"; did you mean `synaptics`?")
        }
        for known in ["auto", "simulated", "fprintd", "synaptics", "goodixmoc", "goodixmoc:0", "virtual_image", "elanspi", "simulated:0"] {
            #expect(throws: Never.self, "\(known)") { try ReaderChoice.validate(known) }
        }
        // Without a readable hwdb no driver is judged.
        #expect(throws: Never.self) { try ReaderChoice.validate("foo", hwdbPath: "/nonexistent") }
    }
}

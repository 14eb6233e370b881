import Foundation
import Testing

/// The built CLI opens libfprint (and the GLib, GUsb and udev libraries it brings) only when it uses a
/// hardware reader: nothing links it, and `LibfprintLibrary` opens it with dlopen. Checked through the
/// dynamic loader's own account of what it loaded (`LD_DEBUG=libs`, on stderr).
@Suite(.timeLimit(.minutes(2))) struct LibfprintLoadingTests {
    let runner = BinaryRunner(extraEnvironment: ["LD_DEBUG": "libs"])

    func loadsLibfprint(_ result: BinaryRunner.Result) -> Bool {
        result.stderr.contains("libfprint-2.so")
    }

    @Test("commands that use no hardware reader never load libfprint", arguments: [
        ["--help"], ["--version"], ["notes", "--help"], ["--reader", "simulated", "status"],
    ])
    func noHardwareReaderNoLibfprint(arguments: [String]) async throws {
        let result = try await runner.run(arguments)
        #expect(result.status == 0, "\(result.stderr.suffix(300))")
        // The loader did report: the check would pass vacuously were LD_DEBUG ignored.
        #expect(result.stderr.contains("find library=libc.so.6"))
        #expect(!loadsLibfprint(result), "\(arguments)")
    }

    @Test func listingHardwareReadersLoadsItWhenAsked() async throws {
        // libfprint's virtual driver is the only one enabled, with no device behind it: nothing is
        // listed, but libfprint had to be opened to say so.
        let result = try await runner.run(
            ["readers", "--json"], environment: ["FP_DRIVERS_WHITELIST": "virtual_device", "FP_VIRTUAL_DEVICE": ""])
        #expect(result.status == 0, "\(result.stderr.suffix(300))")
        #expect(loadsLibfprint(result))
    }
}

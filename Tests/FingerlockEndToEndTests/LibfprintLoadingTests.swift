import FingerlockCLITestSupport
import FingerlockTestSupport
import Foundation
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// The built CLI opens libfprint (and the GLib, GUsb and udev libraries it brings) only when it uses a
/// hardware reader: nothing links it, and `LibfprintLibrary` opens it with dlopen. Checked through the
/// dynamic loader's own account of what it loaded (`LD_DEBUG=libs`, on stderr).
@Suite(.timed, .timeLimit(.minutes(2))) struct LibfprintLoadingTests {
    let runner = BinaryRunner(extraEnvironment: ["LD_DEBUG": "libs"])

    func loadsLibfprint(_ result: BinaryRunner.Result) -> Bool {
        result.stderr.contains("libfprint-2.so")
    }

    @Test(
        "commands that use no hardware reader never load libfprint",
        arguments: [
            ["--help"], ["--version"], ["notes", "--help"], ["--reader", "simulated", "status"],
        ])
    func noHardwareReaderNoLibfprint(arguments: [String]) async throws {
        let result = try await runner.run(arguments)
        #expect(result.status == 0, "\(result.stderr.suffix(300))")
        // The loader did report: the check would pass vacuously were LD_DEBUG ignored.
        #expect(result.stderr.contains("find library=libc.so.6"))
        #expect(!loadsLibfprint(result), "\(arguments)")
    }

    /// Without libfprint (its file hidden in a mount namespace: root, as CI runs) the CLI starts, the
    /// simulated reader works, and a hardware reader fails with one line that says why, exit 4.
    @Test func withoutLibfprintEverythingButHardwareReadersWorks() async throws {
        try #require(geteuid() == 0, "hides libfprint with a bind mount in a mount namespace: run as root (CI does)")
        let linked = ["/usr/lib/x86_64-linux-gnu", "/usr/lib/aarch64-linux-gnu", "/usr/lib64", "/usr/lib"]
            .map { $0 + "/libfprint-2.so.2" }
            .first { access($0, F_OK) == 0 }
        let library = try #require(
            linked.flatMap { realpath($0, nil) }.map { pointer in
                defer { free(pointer) }
                return String(cString: pointer)
            })
        let hidden = ["/usr/bin/unshare", "--mount", "/bin/sh", "-c", "mount --bind /dev/null \"$0\" && exec \"$@\"", library]
        let runner = BinaryRunner()
        let simulated = try await runner.run(
            ["passcode", "set", "--passcode-stdin"], environment: ["FINGERLOCK_READER": "simulated"],
            stdin: "no libfprint 1\nno libfprint 1\n", launcher: hidden)
        #expect(simulated.status == 0, "\(simulated.stderr)")
        for arguments in [["readers"], ["--reader", "auto", "verify"]] {
            let result = try await runner.run(arguments, launcher: hidden)
            #expect(result.status == 4, "\(arguments): \(result.stderr)")
            #expect(result.stderr.hasPrefix("fingerlock: No hardware reader can be used: libfprint could not be loaded ("))
            #expect(result.stderr.split(separator: "\n").count == 1, "\(result.stderr)")
        }
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

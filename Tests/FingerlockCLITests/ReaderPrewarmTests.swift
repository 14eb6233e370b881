import FingerlockCLI
import Testing

/// Which command lines start libfprint early (a speed-only guess; see `mayUseHardwareReader`).
@Suite("Reader prewarm guess")
struct ReaderPrewarmTests {
    @Test("reader commands with a hardware or auto reader start libfprint early", arguments: [
        ["verify"], ["--reader", "virtual_device", "--data-dir", "/d", "verify", "right-index-finger"],
        ["--data-dir", "/d", "notes", "list"], ["enroll", "left-thumb", "--reader=virtual_device"], ["readers", "--json"],
    ])
    func readerCommands(arguments: [String]) {
        #expect(FingerlockMain.mayUseHardwareReader(arguments: arguments, environment: [:]))
    }

    @Test("other commands, the simulated reader and no command do not", arguments: [
        [], ["--help"], ["lock"], ["passcode", "set"], ["config", "get"], ["--data-dir", "verify", "lock"],
        ["--reader", "simulated", "verify"], ["verify", "--reader=simulated"], ["--", "verify"],
    ])
    func otherCommands(arguments: [String]) {
        #expect(!FingerlockMain.mayUseHardwareReader(arguments: arguments, environment: [:]))
    }

    @Test("FINGERLOCK_READER=simulated counts, and the flag wins over it")
    func environment() {
        #expect(!FingerlockMain.mayUseHardwareReader(arguments: ["verify"], environment: ["FINGERLOCK_READER": "simulated"]))
        #expect(FingerlockMain.mayUseHardwareReader(
            arguments: ["--reader", "auto", "verify"], environment: ["FINGERLOCK_READER": "simulated"]))
    }
}

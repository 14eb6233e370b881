import FingerlockCLITestSupport
import FingerlockTestSupport
import FingerprintTestSupport
import Foundation
import Testing

/// The built binary against libfprint's `virtual_device_storage`, a match-on-chip reader. Its store
/// lives in each process and starts empty, so a test puts on it (`INSERT`) what a real chip would
/// still hold from earlier runs: this vault's print, fprintd's, another vault's.
@Suite(.timed, .timeLimit(.minutes(3))) struct ReaderStorageEndToEndTests {
    let runner: BinaryRunner
    let device: VirtualDeviceSocket
    /// This vault's right index finger, as the chip stores it.
    let finger = VirtualDeviceSocket.scanID(finger: 7)
    /// fprintd's print of user carol's left index finger.
    let fprintd = VirtualDeviceSocket.scanID(finger: 2, user: "carol")
    let passcodeInput = "\(BinaryRunner.passcode)\n"

    init() async throws {
        let directory = "/tmp/fl-vs-\(UUID().uuidString.prefix(8))"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        // Generous: on a loaded machine the passcode's key derivation delays the device's opening.
        device = VirtualDeviceSocket(path: directory + "/sock", timeout: .seconds(90))
        runner = BinaryRunner(extraEnvironment: [
            "FP_VIRTUAL_DEVICE_STORAGE": device.path, "FP_DRIVERS_WHITELIST": "virtual_device_storage", "TERM": "dumb",
        ])
        try await runner.setPasscode()
    }

    /// Runs the command while sending `commands` to the reader, each once an operation waits for it.
    ///
    /// `list` and `delete` on this driver go ahead after ~500 ms without a command: on a loaded
    /// machine this process may not get to send its `INSERT`s in that window, and the command then
    /// ran against an empty chip, which is not the situation the test sets up. That is seen for sure
    /// (the command exited while commands were still undelivered: nothing listens any more) and the
    /// command is run again, in a new process whose chip starts empty, up to three times. A command
    /// that ran with everything delivered is never retried, whatever its outcome.
    func run(_ arguments: [String], commands: [VirtualDeviceCommand], stdin: String = "") async throws -> BinaryRunner.Result {
        for attempt in 1...3 {
            let (result, delivered) = try await attemptRun(arguments, commands: commands, stdin: stdin)
            if delivered { return result }
            if attempt == 3 {
                let command = arguments.joined(separator: " ")
                Issue.record("the reader never got \(commands) in three runs; `\(command)` last exited \(result.status): \(result.stderr)")
                return result
            }
        }
        fatalError("unreachable")
    }

    private enum Step {
        case finished(BinaryRunner.Result)
        case delivered
    }

    /// One run; whether every command reached the reader before the command exited.
    private func attemptRun(_ arguments: [String], commands: [VirtualDeviceCommand], stdin: String) async throws
        -> (BinaryRunner.Result, delivered: Bool)
    {
        try await withThrowingTaskGroup(of: Step.self) { group in
            group.addTask { [runner] in .finished(try await runner.run(arguments, stdin: stdin)) }
            group.addTask { [device] in
                for command in commands { try await device.queue(command) }
                return .delivered
            }
            switch try await group.next() {
            case .delivered?:
                guard case .finished(let result)? = try await group.next() else { fatalError("two steps") }
                return (result, true)
            case .finished(let result)?:
                // Whatever was sent got its acknowledgement before the process ended; what was not
                // is still waiting for a listener that will never come back.
                group.cancelAll()
                do {
                    _ = try await group.next()
                    return (result, true)
                } catch {
                    return (result, false)
                }
            case nil:
                fatalError("two steps")
            }
        }
    }

    func enroll() async throws {
        let enrolled = try await run(
            ["enroll", "right-index-finger", "--passcode-stdin"], commands: Array(repeating: .scan(finger), count: 5),
            stdin: passcodeInput)
        #expect(enrolled.status == 0, "\(enrolled.stderr)")
        #expect(enrolled.stdout.contains("Swipe your finger across the sensor 5 times"))
    }

    /// `storage list` after the passcode, with the chip holding this vault's print and fprintd's.
    func list(json: Bool = true) async throws -> BinaryRunner.Result {
        try await run(
            ["storage", "list", "--passcode-stdin"] + (json ? ["--json"] : []),
            commands: [.insert(finger), .insert(fprintd), .cont], stdin: passcodeInput)
    }

    @Test func listShowsWhoseEachStoredPrintIs() async throws {
        try await enroll()
        let listed = try await list()
        #expect(listed.status == 0, "\(listed.stderr)")
        let entries = try #require(JSONSerialization.jsonObject(with: Data(listed.stdout.utf8)) as? [[String: Any]])
        let byOwner = Dictionary(uniqueKeysWithValues: entries.map { ($0["owner"] as? String ?? "", $0) })
        #expect(Set(byOwner.keys) == ["this-vault", "foreign"])
        #expect(byOwner["this-vault"]?["finger"] as? String == "right-index-finger")
        #expect(byOwner["foreign"]?["finger"] as? String == "left-index-finger")
        #expect(byOwner["foreign"]?["user"] as? String == "carol")
        #expect(byOwner["foreign"]?["reader"] as? String == "virtual_device_storage:0")
        #expect((byOwner["foreign"]?["id"] as? String)?.count == 8)

        let human = try await list(json: false)
        #expect(human.stdout.contains("your right-index-finger in this vault"))
        #expect(human.stdout.contains("fingerlock did not enroll (user carol"))
    }

    /// A label on the chip is whatever the enrolling program wrote: control characters in it are shown
    /// escaped, never sent to the terminal, and never break the one-line rule.
    @Test func aHostileLabelIsShownEscaped() async throws {
        let hostile = VirtualDeviceSocket.scanID(finger: 2, user: "eve\u{1B}]0;pwned\u{07}\nline two")
        let listed = try await run(
            ["storage", "list", "--passcode-stdin"], commands: [.insert(hostile), .cont], stdin: passcodeInput)
        #expect(listed.status == 0, "\(listed.stderr)")
        #expect(!listed.stdout.contains("\u{1B}") && !listed.stdout.contains("\u{07}"))
        #expect(!listed.stdout.contains("line two\n") || listed.stdout.contains("\\n"))
        #expect(listed.stdout.split(separator: "\n").filter { $0.contains("user eve") }.count == 1, "\(listed.stdout)")
        let refused = try await run(
            ["storage", "clear", "--passcode-stdin"], commands: [.insert(hostile), .cont], stdin: passcodeInput)
        #expect(refused.status == 64)
        #expect(!refused.stderr.contains("\u{1B}"))
        #expect(refused.stderr.split(separator: "\n").count == 1)
    }

    /// Deleting fprintd's print without a terminal is refused unless --yes, and the refusal says what
    /// would stop working; with --yes it goes. A print of this vault is `forget`'s job.
    @Test func deleteNeedsAConfirmationThatNamesTheConsequence() async throws {
        try await enroll()
        let listed = try await list()
        let entries = try #require(JSONSerialization.jsonObject(with: Data(listed.stdout.utf8)) as? [[String: Any]])
        let foreignID = try #require(entries.first { $0["owner"] as? String == "foreign" }?["id"] as? String)
        let ownID = try #require(entries.first { $0["owner"] as? String == "this-vault" }?["id"] as? String)

        let refused = try await run(
            ["storage", "delete", foreignID, "--passcode-stdin"], commands: [.insert(fprintd), .cont], stdin: passcodeInput)
        #expect(refused.status == 64)
        #expect(refused.stderr.contains("--yes"))
        #expect(refused.stderr.contains("desktop login"))
        #expect(refused.stderr.split(separator: "\n").count == 1)

        let deleted = try await run(
            ["storage", "delete", foreignID, "--yes", "--passcode-stdin"], commands: [.insert(fprintd), .cont, .cont],
            stdin: passcodeInput)
        #expect(deleted.status == 0, "\(deleted.stderr)")
        #expect(deleted.stdout.contains("Deleted \(foreignID)"))

        let own = try await run(
            ["storage", "delete", ownID, "--yes", "--passcode-stdin"], commands: [.insert(finger), .cont], stdin: passcodeInput)
        #expect(own.status == 64)
        #expect(own.stderr.contains("fingerlock forget right-index-finger"))

        let gone = try await run(["storage", "delete", "abcd1234", "--yes", "--passcode-stdin"], commands: [.cont], stdin: passcodeInput)
        #expect(gone.status == 5)
        let malformed = try await runner.run(["storage", "delete", "xyz", "--yes", "--passcode-stdin"], stdin: passcodeInput)
        #expect(malformed.status == 64)
    }

    /// Clearing deletes every program's prints after the confirmation, and forgets this vault's
    /// fingers on that reader, which nothing can match any more.
    @Test func clearForgetsThisVaultsFingersToo() async throws {
        try await enroll()
        let refused = try await run(
            ["storage", "clear", "--passcode-stdin"], commands: [.insert(fprintd), .insert(finger), .cont], stdin: passcodeInput)
        #expect(refused.status == 64)
        #expect(refused.stderr.contains("desktop login"))
        #expect(refused.stderr.contains("right-index-finger will no longer unlock this vault"))

        let cleared = try await runClear(listing: [.insert(fprintd), .insert(finger), .cont])
        #expect(cleared.status == 0, "\(cleared.stderr)")
        #expect(cleared.stdout.contains("2 print(s) deleted"))
        #expect(cleared.stdout.contains("Forgot right-index-finger here too"))
        let fingers = try await runner.run(["fingers", "--json", "--passcode-stdin"], stdin: passcodeInput)
        #expect((try JSONSerialization.jsonObject(with: Data(fingers.stdout.utf8)) as? [Any])?.isEmpty == true)
    }

    /// `storage clear --yes`: `listing` for the listing that comes first, then the `CONT` the clearing
    /// needs. That one must reach the clearing, not the listing: the driver drops commands still queued
    /// when the listing closes, and the clearing gives up 500 ms after it opens. So it goes a moment
    /// after the listing was let go (if nothing listens yet, sending waits for the clearing to open).
    func runClear(listing: [VirtualDeviceCommand]) async throws -> BinaryRunner.Result {
        async let result = runner.run(["storage", "clear", "--yes", "--passcode-stdin"], stdin: passcodeInput)
        for command in listing { try await device.queue(command) }
        try await Task.sleep(for: .milliseconds(200))
        try await device.send(.cont)
        return try await result
    }

    /// A reader that stops answering (`clear_storage` without an answer times out) is a reader error,
    /// exit 4, not exit 1 as for a finger that never came.
    @Test func aReaderThatStopsAnsweringExits4() async throws {
        // No `CONT`: the listing goes ahead after half a second, the clearing waits for an answer in vain.
        let result = try await run(["storage", "clear", "--yes", "--passcode-stdin"], commands: [], stdin: passcodeInput)
        #expect(result.status == 4, "\(result.stderr)")
        #expect(result.stderr.contains("stopped answering"))
    }

    /// The chip lost the print (here: a new process, whose chip is empty, as after a wipe by another
    /// tool). DATA_NOT_FOUND then is neither a no-match nor counted: six in a row never lock out, the
    /// passcode is what is needed (exit 8 without a terminal), and the message says how to re-enroll.
    @Test func aPrintGoneFromTheChipIsNotCountedAndSaysHowToReEnroll() async throws {
        try await enroll()
        for _ in 0...5 {
            let verify = try await run(["verify"], commands: [.error(7)])
            #expect(verify.status == 4, "\(verify.stderr)")
            #expect(verify.stderr.contains("no longer stored on virtual_device_storage:0"))
            #expect(verify.stderr.contains("`fingerlock enroll right-index-finger`"))
        }
        let notes = try await run(["notes", "trash"], commands: [.error(7)])
        #expect(notes.status == 8, "\(notes.stderr)")
        #expect(notes.stderr.contains("no longer stored"))
        // Not locked out: with the print back on the chip, a touch matches.
        let match = try await run(["verify"], commands: [.insert(finger), .scan(finger)])
        #expect(match.status == 0, "\(match.stderr)")
        // While the print is stored, DATA_NOT_FOUND is a plain no-match.
        let noMatch = try await run(["verify"], commands: [.insert(finger), .error(7)])
        #expect(noMatch.status == 1, "\(noMatch.stderr)")
    }

    /// A finger the chip already holds for fprintd is refused naming the owner and the fix.
    @Test func aDuplicateEnrollNamesTheOwnerAndTheFix() async throws {
        let carolsRightIndex = VirtualDeviceSocket.scanID(finger: 7, user: "carol")
        let result = try await run(
            ["enroll", "right-index-finger", "--passcode-stdin"], commands: [.insert(carolsRightIndex), .scan(carolsRightIndex)],
            stdin: passcodeInput)
        #expect(result.status == 4)
        #expect(result.stderr.contains("already stored on virtual_device_storage:0"))
        #expect(result.stderr.contains("user carol"))
        #expect(result.stderr.contains("fingerlock storage delete "))
        #expect(result.stderr.contains("Nothing was saved."))
        #expect(result.stderr.split(separator: "\n").count == 1)
    }

    /// A full reader says how to find and free a place, instead of a dead end.
    @Test func aFullReaderSaysHowToFreeAPlace() async throws {
        let result = try await run(
            ["enroll", "right-index-finger", "--passcode-stdin"], commands: [.error(8)], stdin: passcodeInput)
        #expect(result.status == 4)
        #expect(result.stderr.contains("`fingerlock storage list`"))
        #expect(result.stderr.contains("Nothing was saved."))
    }

    /// The count shown is what the open reader says, and progress follows the driver when it changes.
    @Test func enrollFollowsTheStageCountTheDriverReports() async throws {
        let enrolled = try await run(
            ["enroll", "right-index-finger", "--passcode-stdin"],
            commands: [.setEnrollStages(3), .scan(finger), .scan(finger), .scan(finger)], stdin: passcodeInput)
        #expect(enrolled.status == 0, "\(enrolled.stderr)")
        #expect(enrolled.stdout.contains("(the reader now asks for 3 touches)"))
        #expect(enrolled.stdout.contains("stage 3/3"))
        let readers = try await runner.run(["readers"])
        #expect(readers.stdout.contains("the driver sets the real count when the reader opens"))
    }
}

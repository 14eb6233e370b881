import FingerlockTestSupport
import Fingerprint
import Testing

@Suite(.timed) struct SimulatedScriptTests {
    @Test(arguments: [
        ("right-index-finger", SimulatedTouch.finger(.rightIndex)),
        ("right-index", .finger(.rightIndex)),
        ("left-thumb", .finger(.leftThumb)),
        ("unknown", .unknown),
        ("retry:short", .retry(.tooShort)),
        ("retry:center", .retry(.centerFinger)),
        ("retry:remove", .retry(.removeFinger)),
        ("retry:general", .retry(.general)),
        ("timeout", .timeout),
        ("hold", .hold),
        ("unplug", .unplug),
        ("busy", .busy),
        ("error", .error),
    ])
    func everyItemParses(text: String, touch: SimulatedTouch) throws {
        let script = try SimulatedScript(parsing: text)
        #expect(script.touches == [touch])
        #expect(!script.readerAbsent)
    }

    @Test func holdWaitsItsWholeTimeoutThenTimesOut() async throws {
        let source = ScriptedTouchSource([.hold])
        let started = ContinuousClock.now
        #expect(try await source.nextTouch(for: .verify(.rightIndex), timeout: .milliseconds(200)) == .timeout)
        #expect(ContinuousClock.now - started >= .milliseconds(200))
    }

    @Test func everyFingerNameParses() throws {
        for finger in Finger.allCases {
            #expect(try SimulatedScript(parsing: finger.rawValue).touches == [.finger(finger)])
        }
    }

    @Test func repeatsAndOrderArePreserved() throws {
        let script = try SimulatedScript(parsing: "left-thumb*3, retry:short ,unknown*2,timeout")
        #expect(script.touches == [.finger(.leftThumb), .finger(.leftThumb), .finger(.leftThumb), .retry(.tooShort), .unknown, .unknown, .timeout])
    }

    @Test func emptyScriptHasNoTouches() throws {
        #expect(try SimulatedScript(parsing: "").touches.isEmpty)
    }

    @Test func absentFirstMeansNoReader() throws {
        let script = try SimulatedScript(parsing: "absent,right-thumb")
        #expect(script.readerAbsent)
        #expect(script.touches == [.finger(.rightThumb)])
    }

    @Test(arguments: [
        "bogus", "retry:sideways", "left-thumb*0", "left-thumb*-1", "left-thumb*x", "left-thumb*100001",
        "right-thumb,absent", "a,,b", "right-thumb,",
    ])
    func invalidItemsAreRejectedNamingTheItem(text: String) {
        let error = #expect(throws: SimulatedScript.ParseError.self) { try SimulatedScript(parsing: text) }
        #expect(error?.description.hasPrefix("FINGERLOCK_SIMULATED_TOUCHES:") == true)
        #expect(error?.description.contains("'\(error?.item ?? "<none>")'") == true)
    }

    @Test(.timeLimit(.minutes(1))) func exhaustedScriptTimesOutEveryFurtherScan() async throws {
        let source = ScriptedTouchSource([.finger(.leftThumb)])
        #expect(try await source.nextTouch(for: .verify(.leftThumb), timeout: .seconds(30)) == .finger(.leftThumb))
        for _ in 0..<3 {
            #expect(try await source.nextTouch(for: .verify(.leftThumb), timeout: .seconds(30)) == .timeout)
        }
        #expect(source.remainingCount == 0)
    }
}

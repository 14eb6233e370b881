import Auth
import FingerlockTestSupport
import Testing

@Suite(.timed) struct PasscodeFlowTests {
    let never: (PasscodeFlow.Step, String) -> Bool = { _, _ in
        Issue.record("no check expected")
        return false
    }

    @Test func setThenConfirm() {
        var flow = PasscodeFlow(.set)
        #expect(flow.step == .enterNew)
        #expect(flow.submit("correct horse", check: never) == .init(step: .confirmNew, notice: nil))
        #expect(flow.submit("correct horse", check: never) == .init(step: .finished, notice: nil))
        #expect(flow.newPasscode == "correct horse")
    }

    @Test func aMismatchStartsOverWithANotice() {
        var flow = PasscodeFlow(.set)
        _ = flow.submit("correct horse", check: never)
        let prompt = flow.submit("correct hose", check: never)
        #expect(prompt == .init(step: .enterNew, notice: "The passcodes didn't match. Try again."))
        #expect(flow.newPasscode == nil)
        _ = flow.submit("battery staple", check: never)
        #expect(flow.submit("battery staple", check: never).step == .finished)
        #expect(flow.newPasscode == "battery staple")
    }

    @Test func tooShortIsRefusedAndWeakIsWarned() {
        var flow = PasscodeFlow(.set)
        #expect(flow.submit("abc", check: never) == .init(step: .enterNew, notice: "The passcode must have at least 6 characters."))
        let weak = flow.submit("123456", check: never)
        #expect(weak.step == .confirmNew)
        #expect(weak.notice != nil)
    }

    @Test func changeChecksTheCurrentPasscodeFirst() {
        var flow = PasscodeFlow(.change)
        #expect(flow.step == .enterCurrent)
        var checked: [String] = []
        let check: (PasscodeFlow.Step, String) -> Bool = { step, input in
            #expect(step == .enterCurrent)
            checked.append(input)
            return input == "old passcode"
        }
        #expect(flow.submit("guess", check: check) == .init(step: .enterCurrent, notice: "That passcode is not right."))
        #expect(flow.submit("old passcode", check: check).step == .enterNew)
        #expect(flow.credential == "old passcode")
        _ = flow.submit("new passcode", check: check)
        #expect(flow.submit("new passcode", check: check).step == .finished)
        #expect(checked == ["guess", "old passcode"])
    }

    @Test func resetStartsWithTheRecoveryKey() {
        var flow = PasscodeFlow(.reset)
        #expect(flow.step == .enterRecoveryKey)
        let prompt = flow.submit("XXXX", check: { step, _ in step == .enterRecoveryKey && false })
        #expect(prompt == .init(step: .enterRecoveryKey, notice: "That recovery key is not right."))
        #expect(flow.submit("ABCD-EFGH", check: { _, _ in true }).step == .enterNew)
    }

    @Test func passcodesAreComparedAfterUnicodeNormalisation() {
        var flow = PasscodeFlow(.set)
        _ = flow.submit("caf\u{E9} au lait", check: never)
        #expect(flow.submit("cafe\u{301} au lait", check: never).step == .finished)
    }

    @Test(arguments: ["aaaaaa", "ababab", "123456", "abcdefg", "mypassword1", "24681357"])
    func weakPasscodesGetAWarning(passcode: String) {
        #expect(PasscodeRules.weakness(passcode) != nil)
    }

    @Test(arguments: ["correct horse battery", "Tr0ub4dor&3", "plum-Vortex-91"])
    func ordinaryPasscodesDoNot(passcode: String) {
        #expect(PasscodeRules.weakness(passcode) == nil)
    }
}

@Suite(.timed) struct RemoteSessionTests {
    @Test(arguments: ["SSH_CONNECTION", "SSH_CLIENT", "SSH_TTY"])
    func sshVariablesMeanRemote(variable: String) {
        #expect(RemoteSessionDetector(environment: [variable: "10.0.0.1 5000 10.0.0.2 22"], probe: FakeSessionProbe()).reason() != nil)
    }

    @Test func aLocalSessionIsNotRemote() {
        #expect(RemoteSessionDetector(environment: ["DISPLAY": ":0", "SSH_TTY": ""], probe: FakeSessionProbe()).reason() == nil)
    }
}

import FingerlockTestSupport
import Foundation
import Testing

/// The polkit rule the package ships (`polkit/50-fingerlockd-fprintd.rules`), run by Debian's real
/// polkitd with no other rule (``RealPolkit``) and asked with `pkcheck` as real users: fingerlockd's
/// service user gets fprintd's `verify` and `setusername`, never `enroll`, and every other user keeps
/// fprintd's own policy. dbusmock's polkit (``FprintdRig``) runs no rules, so only this tests it.
/// Needs root (as CI runs) and the users `fingerlockd` (the name the rule grants, so not a test
/// name of its own) and a login user; both are made when missing. Neither user has a login session
/// here, as a system service never has one.
@Suite(.timed, .timeLimit(.minutes(1)))
struct PolkitRuleTests {
    static let serviceUser = "fingerlockd"
    /// A login user of this suite's own, with no session (a user who is not at the machine).
    static let otherUser = "flk-pk-other"

    static let verify = FprintdRig.verify
    static let setUsername = FprintdRig.setUsername
    static let enroll = FprintdRig.enroll

    /// `Tests/FprintdTests/PolkitRuleTests.swift` → the repository's `polkit/` rule.
    static func shippedRule(_ filePath: String = #filePath) -> URL {
        URL(fileURLWithPath: filePath)
            .deletingLastPathComponent()  // FprintdTests
            .deletingLastPathComponent()  // Tests
            .deletingLastPathComponent()
            .appendingPathComponent("polkit/50-fingerlockd-fprintd.rules")
    }

    static func ensureUsers() async throws {
        try #require(geteuid() == 0, "PolkitRuleTests start polkitd in a mount namespace and switch users: run as root (CI does).")
        // As the package's sysusers entry and system-mode-without-systemd.md make it.
        try await RealPolkit.ensureUser(serviceUser, system: true, home: "/var/lib/fingerlockd")
        try await RealPolkit.ensureUser(otherUser, system: false)
    }

    @Test func fingerlockdMayVerifyAnotherUsersFingersButNeverEnroll() async throws {
        try await Self.ensureUsers()
        let polkit = try await RealPolkit(rules: [Self.shippedRule()])
        defer { polkit.stop() }
        // The rule compiled, and it is the only one polkitd runs (none of the machine's).
        #expect(polkit.log.contains("Finished loading, compiling and executing 1 rules"), "\(polkit.log)")
        #expect(try await polkit.check(Self.verify, as: Self.serviceUser) == .authorized)
        #expect(try await polkit.check(Self.setUsername, as: Self.serviceUser) == .authorized)
        // Refused by the rule itself, whatever rules come after it.
        #expect(try await polkit.check(Self.enroll, as: Self.serviceUser) == .notAuthorized)
    }

    /// A local rule read after ours that allows everything (a kiosk's, say) still gives the service
    /// no `enroll`: the shipped rule refuses it outright.
    @Test func aLaterAllowEverythingRuleDoesNotGiveFingerlockdEnroll() async throws {
        try await Self.ensureUsers()
        let permissive = FileManager.default.temporaryDirectory.appendingPathComponent("90-allow-everything-\(UUID().uuidString.prefix(8)).rules")
        try "polkit.addRule(function (action, subject) { return polkit.Result.YES; });\n".write(
            to: permissive, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(at: permissive) }
        let polkit = try await RealPolkit(rules: [Self.shippedRule(), permissive])
        defer { polkit.stop() }
        #expect(polkit.log.contains("Finished loading, compiling and executing 2 rules"), "\(polkit.log)")
        #expect(try await polkit.check(Self.enroll, as: Self.serviceUser) == .notAuthorized)
        // The permissive rule is in effect: another user gets enroll from it.
        #expect(try await polkit.check(Self.enroll, as: Self.otherUser) == .authorized)
    }

    @Test func anotherUserWithoutASessionGetsNothingFromTheRule() async throws {
        try await Self.ensureUsers()
        let polkit = try await RealPolkit(rules: [Self.shippedRule()])
        defer { polkit.stop() }
        for action in [Self.verify, Self.setUsername, Self.enroll] {
            #expect(try await polkit.check(action, as: Self.otherUser) == .notAuthorized, "\(action)")
        }
    }

    /// The control: without the rule, fingerlockd is refused verify like any user without a
    /// session, so the grants above are the rule's and not this machine's or the rig's.
    @Test func withoutTheRuleFingerlockdIsRefusedVerify() async throws {
        try await Self.ensureUsers()
        let polkit = try await RealPolkit(rules: [])
        defer { polkit.stop() }
        #expect(polkit.log.contains("Finished loading, compiling and executing 0 rules"), "\(polkit.log)")
        #expect(try await polkit.check(Self.verify, as: Self.serviceUser) == .notAuthorized)
        #expect(try await polkit.check(Self.setUsername, as: Self.serviceUser) == .notAuthorized)
    }
}

import FingerlockProtocol
import FingerlockServiceTestSupport
import FingerlockTestSupport
import Fingerprint
import Foundation
import Testing

@testable import FingerlockService

/// Templates moving in (`system enable`) and out (`system disable`) of the service, in process:
/// only for the vault's owner, after a counted passcode proof, sealed as enrolled ones, bounded.
@Suite(.timed, .timeLimit(.minutes(1)))
struct ServiceMoveTests {
    let alice = TouchFixture.alice
    let bob = TouchFixture.bob

    /// A template the simulated reader made (enrolled through another service instance).
    static func simulatedTemplate() async throws -> VarlinkParameters.FingerTemplate {
        let maker = try TouchFixture(script: [.finger(.rightIndex), .finger(.rightIndex)])
        _ = try await maker.enroll(.rightIndex)
        return try maker.export(.rightIndex).print
    }

    @Test func anImportedTemplateMatchesATouchAndExportsAsItCame() async throws {
        let template = try await Self.simulatedTemplate()
        #expect(template.reader == "simulated:0" && !template.template.isEmpty)
        let fixture = try TouchFixture(script: [.finger(.rightIndex)])
        let reply = try await fixture.import(template)
        #expect(reply.enrolled == .init(finger: "right-index-finger", reader: "simulated:0", enrolled: template.enrolled))
        #expect(try fixture.core.listFingers(.init(vault: fixture.vault.id), peer: alice).fingers == [reply.enrolled])
        // Sealed in the same file as an enrolled one.
        let path = fixture.harness.directory + "/state/v1/\(alice.uid)/\(fixture.vault.id.lowercased())/print.right-index-finger"
        let bytes = try Data(contentsOf: URL(fileURLWithPath: path))
        #expect(bytes.range(of: Data("FLSIM1".utf8)) == nil)
        #expect(try fixture.export(.rightIndex).print == template)
        try fixture.unlockWithPasscode(cacheSeconds: 600)
        #expect(try await fixture.touch().key == fixture.vault.key.base64EncodedString())
    }

    @Test func aWrongProofIsCountedAndMovesNothing() async throws {
        let template = try await Self.simulatedTemplate()
        let fixture = try TouchFixture(script: [])
        do {
            _ = try await fixture.import(template, stretched: ClientVault.wrong)
            Issue.record("imported with a wrong passcode")
        } catch {
            #expect((error as? VarlinkError)?.name == "io.fingerlock.Service.WrongPasscode")
        }
        #expect(try fixture.core.listFingers(.init(vault: fixture.vault.id), peer: alice).fingers.isEmpty)
        _ = try await fixture.import(template)
        #expect(throws: VarlinkError.self) { try fixture.export(.rightIndex, stretched: ClientVault.wrong) }
        #expect(try fixture.core.status(.init(vault: fixture.vault.id), peer: alice).status.failedPasscodes == 1)
        do {
            _ = try fixture.export(.leftThumb)
            Issue.record("exported a finger that is not enrolled")
        } catch {
            #expect((error as? VarlinkError)?.name == "io.fingerlock.Service.FingerNotEnrolled")
        }
    }

    @Test func anotherUserNeitherSeesNorTakesTheTemplates() async throws {
        let template = try await Self.simulatedTemplate()
        let fixture = try TouchFixture(script: [])
        _ = try await fixture.import(template)
        #expect(throws: VarlinkError.self) { try fixture.export(.rightIndex, as: bob) }
        // Bob's own vault with the same id and his own passcode: Alice's template is not there.
        _ = try fixture.core.registerVault(.init(vault: fixture.vault.id), peer: bob)
        let bobsSlot = try fixture.vault.seal(fixture.core, as: bob)
        do {
            _ = try fixture.core.exportFinger(
                .init(proof: fixture.vault.proof(slot: bobsSlot), finger: "right-index"), peer: bob)
            Issue.record("Bob exported Alice's finger")
        } catch {
            #expect(error.name == "io.fingerlock.Service.FingerNotEnrolled")
        }
        #expect(try fixture.core.listFingers(.init(vault: fixture.vault.id), peer: bob).fingers.isEmpty)
    }

    @Test func anOversizeTemplateOrAnotherReadersIsRefusedUncounted() async throws {
        let template = try await Self.simulatedTemplate()
        let fixture = try TouchFixture(script: [])
        var oversize = template
        oversize.template = Data(count: ServiceInterface.maximumTemplateSize + 1).base64EncodedString()
        await #expect(throws: VarlinkError.invalidParameter("template")) { try await fixture.import(oversize) }
        var empty = template
        empty.template = ""
        await #expect(throws: VarlinkError.invalidParameter("template")) { try await fixture.import(empty) }
        var foreign = template
        foreign.reader = "virtual_image:0"
        do {
            _ = try await fixture.import(foreign)
            Issue.record("imported a template of another reader")
        } catch {
            #expect((error as? VarlinkError)?.name == "io.fingerlock.Service.ReaderMismatch")
            #expect((error as? VarlinkError)?.parameters["serviceReader"] == .string("simulated:0"))
        }
        #expect(try fixture.core.status(.init(vault: fixture.vault.id), peer: alice).status.failedPasscodes == 0)
        #expect(try fixture.core.listFingers(.init(vault: fixture.vault.id), peer: alice).fingers.isEmpty)
        // Without a reader the service cannot match any template: refused the same way.
        let harness = try ServiceHarness()
        let vault = ClientVault()
        _ = try harness.core.registerVault(.init(vault: vault.id), peer: alice)
        let slot = try vault.seal(harness.core, as: alice)
        do {
            _ = try await harness.core.importFinger(.init(proof: vault.proof(slot: slot), print: template), peer: alice)
            Issue.record("imported without a reader")
        } catch {
            #expect((error as? VarlinkError)?.parameters["serviceReader"] == .string(""))
        }
    }
}

extension TouchFixture {
    func `import`(_ print: VarlinkParameters.FingerTemplate, stretched: Data? = nil) async throws
        -> VarlinkParameters.ImportFingerReply
    {
        try await core.importFinger(.init(proof: vault.proof(slot: slot, stretched: stretched), print: print), peer: Self.alice)
    }

    func export(_ finger: Finger, as peer: PeerCredentials = alice, stretched: Data? = nil) throws
        -> VarlinkParameters.ExportFingerReply
    {
        try core.exportFinger(.init(proof: vault.proof(slot: slot, stretched: stretched), finger: finger.rawValue), peer: peer)
    }
}

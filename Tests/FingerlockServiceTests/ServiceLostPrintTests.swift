import FingerlockProtocol
import FingerlockServiceTestSupport
import FingerlockTestSupport
import Fingerprint
import Foundation
import Testing

@testable import FingerlockService

/// fingerlockd hosts the same rule as user mode for a reader's "not in my storage" (``LostPrints``).
@Suite(.timed, .timeLimit(.minutes(1)))
struct ServiceLostPrintTests {
    /// Like synaptics: cannot list its storage (the simulated reader cannot), verifies against the one
    /// enrolled print, reads the finger, then answers that the print is not in its database.
    @Test func aNamedPrintAReaderThatCannotListNoLongerHasIsNotCounted() async throws {
        let fixture = try TouchFixture(script: [.finger(.rightIndex), .finger(.rightIndex)]) { inner in
            HookedReader(inner: inner) { _, _, fingerRead in
                fingerRead()
                return .notInReaderStorage
            }
        }
        _ = try await fixture.enroll(.rightIndex)
        try fixture.unlockWithPasscode(cacheSeconds: 600)
        for _ in 0...5 {
            let error = await fixture.touchError()
            #expect(error?.name == "io.fingerlock.Service.ReaderUnavailable")
            guard case .string(let message) = error?.parameters["message"] else {
                Issue.record("no message in \(String(describing: error))")
                continue
            }
            #expect(message.contains("The right-index-finger print is no longer stored on simulated:0"))
            #expect(message.contains("fingerlock enroll right-index-finger"))
        }
        #expect(try fixture.failedTouches == 0)
        #expect(try fixture.core.status(.init(vault: fixture.vault.id), peer: TouchFixture.alice).status.unlocked)
    }

    /// Where several prints were scanned (an identify), the answer names none: a counted no-match.
    @Test func anIdentifyAnsweredNotStoredStaysCounted() async throws {
        let fixture = try TouchFixture(
            script: [.finger(.rightIndex), .finger(.rightIndex), .finger(.leftThumb), .finger(.leftThumb)]
        ) { inner in
            HookedReader(inner: inner) { prints, timeout, fingerRead in
                guard prints.count > 1 else { return try await inner.verify(prints[0], timeout: timeout, fingerRead: fingerRead) }
                fingerRead()
                return .notInReaderStorage
            }
        }
        _ = try await fixture.enroll(.rightIndex)
        _ = try await fixture.enroll(.leftThumb)
        try fixture.unlockWithPasscode(cacheSeconds: 600)
        #expect(await fixture.touchError()?.name == "io.fingerlock.Service.NoMatch")
        #expect(try fixture.failedTouches == 1)
    }
}

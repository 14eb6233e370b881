import AuthCore
import FingerlockServiceTestSupport
import FingerlockTestSupport
import Foundation
import SafeFiles
import Synchronization
import Testing

@testable import FingerlockService

#if canImport(Glibc)
    import Glibc
#endif

/// The ledger of TPM failures in the service's state: durable across a new store on the same
/// directory (a restart), private, held alone, and never read as empty when it is damaged (that would
/// hand every share back).
@Suite(.timed, .timeLimit(.minutes(1)))
struct FileTPMFailureStoreTests {
    let directory: String
    let layout: StateLayout

    init() throws {
        directory = try TemporaryDirectory.make() + "/state"
        layout = try StateLayout(stateDirectory: directory)
    }

    func charge(_ account: String) -> TPMFailureLedger.Charge {
        TPMFailureLedger.Charge(id: UUID(), account: account, countedAt: Date(timeIntervalSince1970: 1_800_000_000.123))
    }

    @Test func aSavedLedgerIsWhatANewStoreOnTheSameStateReadsAndOnlyTheServiceCanReadIt() throws {
        let ledger = TPMFailureLedger(charges: [charge("uid 1002"), charge("unclaimed")])
        try FileTPMFailureStore(layout: layout).exclusively { _, save in try save(ledger) }
        let read = try FileTPMFailureStore(layout: layout).exclusively { ledger, _ in ledger }
        #expect(read == ledger)
        var info = stat()
        #expect(stat(directory + "/v1/tpm-failures", &info) == 0)
        #expect(info.st_mode & 0o777 == 0o600)
    }

    @Test func noLedgerYetIsAnEmptyOne() throws {
        #expect(try FileTPMFailureStore(layout: layout).exclusively { ledger, _ in ledger } == TPMFailureLedger())
    }

    @Test func aDamagedLedgerIsRefusedNotReadAsEmpty() throws {
        try FileTPMFailureStore(layout: layout).exclusively { _, save in try save(TPMFailureLedger(charges: [charge("uid 1002")])) }
        try Data("{\"charges\": [".utf8).write(to: URL(fileURLWithPath: directory + "/v1/tpm-failures"))
        #expect(throws: ServiceStateError.self) {
            try FileTPMFailureStore(layout: layout).exclusively { ledger, _ in ledger }
        }
    }

    @Test func holdersTakeTurnsSoNoTwoFindTheSameRoom() throws {
        // Two stores on one state (as two processes would be) and threads of each: every holder
        // reads what the one before it saved.
        let stores = [FileTPMFailureStore(layout: layout), FileTPMFailureStore(layout: layout)]
        let overlaps = Mutex(0)
        let inside = Mutex(false)
        DispatchQueue.concurrentPerform(iterations: 20) { index in
            try? stores[index % 2].exclusively { ledger, save in
                if inside.withLock({
                    let was = $0
                    $0 = true
                    return was
                }) {
                    overlaps.withLock { $0 += 1 }
                }
                try save(TPMFailureLedger(charges: ledger.charges + [charge("uid \(index)")]))
                inside.withLock { $0 = false }
            }
        }
        #expect(overlaps.withLock { $0 } == 0)
        #expect(try stores[0].exclusively { ledger, _ in ledger.charges.count } == 20)
    }
}

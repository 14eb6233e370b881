import FingerlockProtocol
import FingerlockServiceTestSupport
import Foundation

@testable import FingerlockService

/// A client vault's calls straight to a service core in process.
extension ClientVault {
    func seal(_ core: ServiceCore, as peer: PeerCredentials) throws -> String {
        try core.sealPasscodeSlot(
            .init(
                vault: id, stretched: stretched.base64EncodedString(), key: key.base64EncodedString(),
                associatedData: associatedData.base64EncodedString()), peer: peer
        ).sealedSlot
    }

    func unlock(
        _ core: ServiceCore, slot: String, as peer: PeerCredentials, stretched: Data? = nil, cacheSeconds: Int = 600
    ) throws(VarlinkError) -> VarlinkParameters.UnlockWithPasscodeReply {
        try core.unlockWithPasscode(
            .init(
                vault: id, stretched: (stretched ?? self.stretched).base64EncodedString(), sealedSlot: slot,
                associatedData: associatedData.base64EncodedString(), cacheSeconds: cacheSeconds), peer: peer)
    }

    func proof(slot: String, stretched: Data? = nil) -> VarlinkParameters.PasscodeProof {
        .init(
            vault: id, stretched: (stretched ?? self.stretched).base64EncodedString(), sealedSlot: slot,
            associatedData: associatedData.base64EncodedString())
    }
}

internal import CTSS2
public import Crypto

/// The TPM through tpm2-tss's ESAPI. Every operation opens its own connection, creates the storage
/// parent, works in a salted, encrypted session (so neither the authorization value nor the secret
/// crosses the bus in clear) and flushes what it loaded.
///
/// The storage parent is the TCG's SRK template (ECC P-256, AES-128-CFB, restricted decrypt) with
/// `noDA` and an empty authorization: recreated identically from the owner seed each time, so only
/// the sealed object is stored, and usable while the TPM is in lockout. The sealed object is not
/// `noDA`: each wrong authorization counts toward the TPM's dictionary-attack lockout. Sealed
/// objects load only under this TPM's owner seed: another TPM, or this one after a clear, refuses
/// them.
public struct ESAPIModule: TrustedPlatformModule {
    public let location: String

    /// The kernel's resource manager, which tpm-udev opens to group `tss`.
    public static let defaultLocation = "device:/dev/tpmrm0"

    /// `tcti` empty (or only spaces) means the default: tpm2-tss would otherwise try its own list,
    /// which ends with a TCP port any local user could listen on.
    public init(tcti: String = ESAPIModule.defaultLocation) {
        location = tcti.allSatisfy(\.isWhitespace) ? Self.defaultLocation : tcti
    }

    public func seal(_ secret: SymmetricKey, authorization: SymmetricKey, bindingPCR7: Bool) throws(TPMError) -> [UInt8] {
        let connection = try ESAPIConnection(tcti: location)
        let context = connection.context
        let parent = try createStorageParent(context)
        defer { _ = tss.Esys_FlushContext(context, parent) }
        let session = try startSession(context, salt: parent, type: TPM2_SE(TPM2_SE_HMAC))
        defer { _ = tss.Esys_FlushContext(context, session) }

        var template = TPM2B_PUBLIC()
        template.publicArea.type = TPMI_ALG_PUBLIC(TPM2_ALG_KEYEDHASH)
        template.publicArea.nameAlg = TPMI_ALG_HASH(TPM2_ALG_SHA256)
        template.publicArea.parameters.keyedHashDetail.scheme.scheme = TPMI_ALG_KEYEDHASH_SCHEME(TPM2_ALG_NULL)
        if bindingPCR7 {
            // PolicyPCR(sha256:7) then PolicyAuthValue: the PCR must match and the passcode's half
            // still authorizes (and counts); no plain authorization path.
            template.publicArea.authPolicy = try pcr7Policy(context)
            template.publicArea.objectAttributes = TPMA_OBJECT(TPMA_OBJECT_FIXEDTPM | TPMA_OBJECT_FIXEDPARENT)
        } else {
            template.publicArea.objectAttributes = TPMA_OBJECT(
                TPMA_OBJECT_FIXEDTPM | TPMA_OBJECT_FIXEDPARENT | TPMA_OBJECT_USERWITHAUTH)
        }
        var sensitive = TPM2B_SENSITIVE_CREATE()
        defer { Self.zero(&sensitive) }
        authorization.withUnsafeBytes { bytes in
            sensitive.sensitive.userAuth.size = UInt16(bytes.count)
            withUnsafeMutableBytes(of: &sensitive.sensitive.userAuth.buffer) { $0.copyMemory(from: bytes) }
        }
        secret.withUnsafeBytes { bytes in
            sensitive.sensitive.data.size = UInt16(bytes.count)
            withUnsafeMutableBytes(of: &sensitive.sensitive.data.buffer) { $0.copyMemory(from: bytes) }
        }
        var outsideInfo = TPM2B_DATA()
        var creationPCR = TPML_PCR_SELECTION()
        var privatePart: UnsafeMutablePointer<TPM2B_PRIVATE>?
        var publicPart: UnsafeMutablePointer<TPM2B_PUBLIC>?
        let created = tss.Esys_Create(
            context, parent, session, ESYS_TR(ESYS_TR_NONE), ESYS_TR(ESYS_TR_NONE), &sensitive, &template, &outsideInfo,
            &creationPCR, &privatePart, &publicPart, nil, nil, nil)
        defer {
            tss.Esys_Free(privatePart)
            tss.Esys_Free(publicPart)
        }
        guard created == TSS2_RC_SUCCESS, let privatePart, let publicPart else {
            throw Self.error(created, doing: "seal the secret")
        }
        return try Self.marshal(publicPart.pointee, privatePart.pointee)
    }

    public func unseal(_ object: [UInt8], authorization: SymmetricKey, bindingPCR7: Bool) throws(TPMError) -> SymmetricKey {
        var (publicPart, privatePart) = try Self.unmarshal(object)
        let connection = try ESAPIConnection(tcti: location)
        let context = connection.context
        let parent = try createStorageParent(context)
        defer { _ = tss.Esys_FlushContext(context, parent) }
        let session = try startSession(context, salt: parent, type: TPM2_SE(TPM2_SE_HMAC))
        defer { _ = tss.Esys_FlushContext(context, session) }
        var handle = ESYS_TR(ESYS_TR_NONE)
        let loaded = tss.Esys_Load(
            context, parent, session, ESYS_TR(ESYS_TR_NONE), ESYS_TR(ESYS_TR_NONE), &privatePart, &publicPart, &handle)
        guard loaded == TSS2_RC_SUCCESS else { throw Self.error(loaded, doing: "load the sealed secret") }
        defer { _ = tss.Esys_FlushContext(context, handle) }

        var auth = TPM2B_AUTH()
        defer { Self.zero(&auth) }
        authorization.withUnsafeBytes { bytes in
            auth.size = UInt16(bytes.count)
            withUnsafeMutableBytes(of: &auth.buffer) { $0.copyMemory(from: bytes) }
        }
        let authSet = tss.Esys_TR_SetAuth(context, handle, &auth)
        guard authSet == TSS2_RC_SUCCESS else { throw Self.error(authSet, doing: "authorize the sealed secret") }

        var authorizing = session
        var policySession: ESYS_TR?
        defer { if let policySession { _ = tss.Esys_FlushContext(context, policySession) } }
        if bindingPCR7 {
            let policy = try startSession(context, salt: parent, type: TPM2_SE(TPM2_SE_POLICY))
            policySession = policy
            try Self.applyPCR7Policy(context, policy)
            authorizing = policy
        }
        var out: UnsafeMutablePointer<TPM2B_SENSITIVE_DATA>?
        let unsealed = tss.Esys_Unseal(context, handle, authorizing, ESYS_TR(ESYS_TR_NONE), ESYS_TR(ESYS_TR_NONE), &out)
        defer {
            if let out { Self.zero(&out.pointee) }
            tss.Esys_Free(out)
        }
        guard unsealed == TSS2_RC_SUCCESS, let out else { throw Self.error(unsealed, doing: "unseal the secret") }
        let size = Int(out.pointee.size)
        guard size == 32 else { throw TPMError(.malformed, "The TPM's sealed secret has \(size) bytes, not 32.") }
        return withUnsafeBytes(of: &out.pointee.buffer) { SymmetricKey(data: $0.prefix(size)) }
    }

    public func check(_ object: [UInt8], bindingPCR7: Bool) throws(TPMError) {
        var (publicPart, privatePart) = try Self.unmarshal(object)
        let connection = try ESAPIConnection(tcti: location)
        let context = connection.context
        let parent = try createStorageParent(context)
        defer { _ = tss.Esys_FlushContext(context, parent) }
        var handle = ESYS_TR(ESYS_TR_NONE)
        let loaded = tss.Esys_Load(
            context, parent, ESYS_TR(ESYS_TR_PASSWORD), ESYS_TR(ESYS_TR_NONE), ESYS_TR(ESYS_TR_NONE), &privatePart,
            &publicPart, &handle)
        guard loaded == TSS2_RC_SUCCESS else { throw Self.error(loaded, doing: "load the sealed secret") }
        _ = tss.Esys_FlushContext(context, handle)
        guard bindingPCR7 else { return }
        // The policy PCR 7 gives now, against the one the object was sealed under.
        var now = try pcr7Policy(context)
        var sealed = publicPart.publicArea.authPolicy
        let same =
            now.size == sealed.size
            && withUnsafeBytes(of: &now.buffer) { a in
                withUnsafeBytes(of: &sealed.buffer) { b in a.prefix(Int(now.size)).elementsEqual(b.prefix(Int(now.size))) }
            }
        guard same else { throw Self.error(0x99D, doing: "check the PCR 7 policy") }
    }

    public func lockoutState() throws(TPMError) -> TPMLockoutState {
        let connection = try ESAPIConnection(tcti: location)
        var more = TPMI_YES_NO(0)
        var data: UnsafeMutablePointer<TPMS_CAPABILITY_DATA>?
        let asked = tss.Esys_GetCapability(
            connection.context, ESYS_TR(ESYS_TR_NONE), ESYS_TR(ESYS_TR_NONE), ESYS_TR(ESYS_TR_NONE),
            TPM2_CAP(TPM2_CAP_TPM_PROPERTIES), Property.permanent, 32, &more, &data)
        defer { tss.Esys_Free(data) }
        guard asked == TSS2_RC_SUCCESS, let data else { throw Self.error(asked, doing: "read its lockout state") }
        var values: [UInt32: UInt32] = [:]
        let properties = data.pointee.data.tpmProperties
        let count = min(Int(properties.count), MemoryLayout.size(ofValue: properties.tpmProperty) / MemoryLayout<TPMS_TAGGED_PROPERTY>.stride)
        withUnsafeBytes(of: properties.tpmProperty) { raw in
            for property in raw.bindMemory(to: TPMS_TAGGED_PROPERTY.self).prefix(count) {
                values[property.property] = property.value
            }
        }
        let permanent = values[Property.permanent] ?? 0
        return TPMLockoutState(
            failedTries: Int(values[Property.lockoutCounter] ?? 0),
            maximumTries: Int(values[Property.maxAuthFail] ?? 0),
            interval: Int(values[Property.lockoutInterval] ?? 0),
            recovery: Int(values[Property.lockoutRecovery] ?? 0),
            inLockout: permanent & UInt32(TPMA_PERMANENT_INLOCKOUT) != 0,
            lockoutPasswordSet: permanent & UInt32(TPMA_PERMANENT_LOCKOUTAUTHSET) != 0)
    }

    /// TPM2_PT_VAR's properties (compound macros in the headers, which Swift does not import).
    enum Property {
        static let permanent: UInt32 = 0x200
        static let lockoutCounter: UInt32 = 0x20E
        static let maxAuthFail: UInt32 = 0x20F
        static let lockoutInterval: UInt32 = 0x210
        static let lockoutRecovery: UInt32 = 0x211
    }

    // MARK: - Pieces

    private func createStorageParent(_ context: OpaquePointer?) throws(TPMError) -> ESYS_TR {
        var template = TPM2B_PUBLIC()
        template.publicArea.type = TPMI_ALG_PUBLIC(TPM2_ALG_ECC)
        template.publicArea.nameAlg = TPMI_ALG_HASH(TPM2_ALG_SHA256)
        template.publicArea.objectAttributes = TPMA_OBJECT(
            TPMA_OBJECT_FIXEDTPM | TPMA_OBJECT_FIXEDPARENT | TPMA_OBJECT_SENSITIVEDATAORIGIN | TPMA_OBJECT_USERWITHAUTH
                | TPMA_OBJECT_NODA | TPMA_OBJECT_RESTRICTED | TPMA_OBJECT_DECRYPT)
        template.publicArea.parameters.eccDetail.symmetric.algorithm = TPMI_ALG_SYM_OBJECT(TPM2_ALG_AES)
        template.publicArea.parameters.eccDetail.symmetric.keyBits.aes = 128
        template.publicArea.parameters.eccDetail.symmetric.mode.aes = TPMI_ALG_SYM_MODE(TPM2_ALG_CFB)
        template.publicArea.parameters.eccDetail.scheme.scheme = TPMI_ALG_ECC_SCHEME(TPM2_ALG_NULL)
        template.publicArea.parameters.eccDetail.curveID = TPMI_ECC_CURVE(TPM2_ECC_NIST_P256)
        template.publicArea.parameters.eccDetail.kdf.scheme = TPMI_ALG_KDF(TPM2_ALG_NULL)
        var sensitive = TPM2B_SENSITIVE_CREATE()
        var outsideInfo = TPM2B_DATA()
        var creationPCR = TPML_PCR_SELECTION()
        var handle = ESYS_TR(ESYS_TR_NONE)
        let created = tss.Esys_CreatePrimary(
            context, ESYS_TR(ESYS_TR_RH_OWNER), ESYS_TR(ESYS_TR_PASSWORD), ESYS_TR(ESYS_TR_NONE), ESYS_TR(ESYS_TR_NONE),
            &sensitive, &template, &outsideInfo, &creationPCR, &handle, nil, nil, nil, nil)
        guard created == TSS2_RC_SUCCESS else {
            if Self.tpmCode(created) == 0x0A2 || Self.tpmCode(created) == 0x08E {
                throw TPMError(
                    .failed,
                    "The TPM's owner hierarchy has a password, so fingerlock cannot create its storage key there"
                        + " (\(ESAPIConnection.decode(created))).")
            }
            throw Self.error(created, doing: "create its storage key")
        }
        return handle
    }

    /// A session salted with the storage parent, encrypting the first command parameter (the
    /// sensitive data sent to `Create`) and the first response parameter (the secret `Unseal` returns).
    private func startSession(_ context: OpaquePointer?, salt: ESYS_TR, type: TPM2_SE) throws(TPMError) -> ESYS_TR {
        var symmetric = TPMT_SYM_DEF()
        symmetric.algorithm = TPMI_ALG_SYM(TPM2_ALG_AES)
        symmetric.keyBits.aes = 128
        symmetric.mode.aes = TPMI_ALG_SYM_MODE(TPM2_ALG_CFB)
        var session = ESYS_TR(ESYS_TR_NONE)
        let started = tss.Esys_StartAuthSession(
            context, salt, ESYS_TR(ESYS_TR_NONE), ESYS_TR(ESYS_TR_NONE), ESYS_TR(ESYS_TR_NONE), ESYS_TR(ESYS_TR_NONE),
            nil, type, &symmetric, TPMI_ALG_HASH(TPM2_ALG_SHA256), &session)
        guard started == TSS2_RC_SUCCESS else { throw Self.error(started, doing: "start an encrypted session") }
        let attributes = TPMA_SESSION(TPMA_SESSION_DECRYPT | TPMA_SESSION_ENCRYPT | TPMA_SESSION_CONTINUESESSION)
        let set = tss.Esys_TRSess_SetAttributes(context, session, attributes, 0xff)
        guard set == TSS2_RC_SUCCESS else {
            _ = tss.Esys_FlushContext(context, session)
            throw Self.error(set, doing: "set up an encrypted session")
        }
        return session
    }

    /// The policy digest of PolicyPCR(sha256:7, its current value) then PolicyAuthValue, from a trial session.
    private func pcr7Policy(_ context: OpaquePointer?) throws(TPMError) -> TPM2B_DIGEST {
        var symmetric = TPMT_SYM_DEF()
        symmetric.algorithm = TPMI_ALG_SYM(TPM2_ALG_NULL)
        var trial = ESYS_TR(ESYS_TR_NONE)
        let started = tss.Esys_StartAuthSession(
            context, ESYS_TR(ESYS_TR_NONE), ESYS_TR(ESYS_TR_NONE), ESYS_TR(ESYS_TR_NONE), ESYS_TR(ESYS_TR_NONE),
            ESYS_TR(ESYS_TR_NONE), nil, TPM2_SE(TPM2_SE_TRIAL), &symmetric, TPMI_ALG_HASH(TPM2_ALG_SHA256), &trial)
        guard started == TSS2_RC_SUCCESS else { throw Self.error(started, doing: "compute the PCR 7 policy") }
        defer { _ = tss.Esys_FlushContext(context, trial) }
        try Self.applyPCR7Policy(context, trial)
        var digest: UnsafeMutablePointer<TPM2B_DIGEST>?
        let got = tss.Esys_PolicyGetDigest(context, trial, ESYS_TR(ESYS_TR_NONE), ESYS_TR(ESYS_TR_NONE), ESYS_TR(ESYS_TR_NONE), &digest)
        defer { tss.Esys_Free(digest) }
        guard got == TSS2_RC_SUCCESS, let digest else { throw Self.error(got, doing: "compute the PCR 7 policy") }
        return digest.pointee
    }

    private static func applyPCR7Policy(_ context: OpaquePointer?, _ session: ESYS_TR) throws(TPMError) {
        var selection = TPML_PCR_SELECTION()
        selection.count = 1
        selection.pcrSelections.0.hash = TPMI_ALG_HASH(TPM2_ALG_SHA256)
        selection.pcrSelections.0.sizeofSelect = 3
        selection.pcrSelections.0.pcrSelect.0 = 1 << 7
        var current = TPM2B_DIGEST()
        let pcr = tss.Esys_PolicyPCR(
            context, session, ESYS_TR(ESYS_TR_NONE), ESYS_TR(ESYS_TR_NONE), ESYS_TR(ESYS_TR_NONE), &current, &selection)
        guard pcr == TSS2_RC_SUCCESS else { throw error(pcr, doing: "apply the PCR 7 policy") }
        let value = tss.Esys_PolicyAuthValue(context, session, ESYS_TR(ESYS_TR_NONE), ESYS_TR(ESYS_TR_NONE), ESYS_TR(ESYS_TR_NONE))
        guard value == TSS2_RC_SUCCESS else { throw error(value, doing: "apply the PCR 7 policy") }
    }

    // MARK: - Blobs

    /// TPM2B_PUBLIC then TPM2B_PRIVATE, as the TSS marshals them (each self-delimiting).
    private static func marshal(_ publicPart: TPM2B_PUBLIC, _ privatePart: TPM2B_PRIVATE) throws(TPMError) -> [UInt8] {
        var publicPart = publicPart
        var privatePart = privatePart
        var buffer = [UInt8](repeating: 0, count: MemoryLayout<TPM2B_PUBLIC>.size + MemoryLayout<TPM2B_PRIVATE>.size)
        var offset = 0
        let count = buffer.count
        var rc = tss.Tss2_MU_TPM2B_PUBLIC_Marshal(&publicPart, &buffer, count, &offset)
        if rc == TSS2_RC_SUCCESS { rc = tss.Tss2_MU_TPM2B_PRIVATE_Marshal(&privatePart, &buffer, count, &offset) }
        guard rc == TSS2_RC_SUCCESS else { throw error(rc, doing: "store the sealed secret") }
        return Array(buffer.prefix(offset))
    }

    private static func unmarshal(_ object: [UInt8]) throws(TPMError) -> (TPM2B_PUBLIC, TPM2B_PRIVATE) {
        try TSSLibrary.require()
        var publicPart = TPM2B_PUBLIC()
        var privatePart = TPM2B_PRIVATE()
        var offset = 0
        var rc = tss.Tss2_MU_TPM2B_PUBLIC_Unmarshal(object, object.count, &offset, &publicPart)
        if rc == TSS2_RC_SUCCESS { rc = tss.Tss2_MU_TPM2B_PRIVATE_Unmarshal(object, object.count, &offset, &privatePart) }
        guard rc == TSS2_RC_SUCCESS, offset == object.count else {
            throw TPMError(.malformed, "The TPM-sealed part of the passcode slot is damaged.")
        }
        return (publicPart, privatePart)
    }

    // MARK: - Response codes

    /// A TPM response's error number without its handle/session/parameter index (format 1), or
    /// the warning's code (format 0); nil for errors of the TSS's own layers.
    static func tpmCode(_ rc: TSS2_RC) -> UInt32? {
        guard rc & 0xFF_0000 == 0 else { return nil }
        return rc & 0x80 != 0 ? rc & 0xBF : rc & 0x97F
    }

    static func error(_ rc: TSS2_RC, doing what: String) -> TPMError {
        let detail = ESAPIConnection.decode(rc)
        switch tpmCode(rc) {
        case 0x08E, 0x0A2:
            return TPMError(.authorizationFailed, "Wrong passcode (the TPM counted the failed authorization).")
        case 0x921:
            return TPMError(.lockout(seconds: 0), "The TPM is in dictionary-attack lockout and refuses even the right passcode.")
        case 0x902, 0x903:
            return TPMError(
                .busy,
                "The TPM has no room left for loaded objects or sessions (\(detail)): a program, or a fingerlock killed"
                    + " mid-unlock, left some loaded, which the kernel's resource manager (device:/dev/tpmrm0) would have"
                    + " flushed. `tpm2_flushcontext -t -s` (or restarting the TPM) frees them.")
        case 0x908, 0x909, 0x90A, 0x922:
            return TPMError(.busy, "The TPM could not \(what) just now (\(detail)).")
        case 0x09D:
            return TPMError(
                .policyMismatch,
                "The TPM refuses this passcode slot: PCR 7 (the Secure Boot state) is not what it was when the slot was bound"
                    + " (a firmware, Secure Boot or bootloader update changes it).")
        case 0x09F, 0x08B, 0x09A, 0x0A1:
            return TPMError(
                .foreignObject,
                "This TPM cannot load the passcode slot's sealed secret: it was sealed by another TPM, or this TPM was"
                    + " cleared since (\(detail)).")
        case .none:
            if rc & 0xFF_0000 == TSS2_RC(10 << 16) || rc & 0xFF_0000 == TSS2_RC(16 << 16) {
                return TPMError(.unreachable, "The TPM stopped answering while fingerlock tried to \(what) (\(detail)).")
            }
            return TPMError(.failed, "The TPM software stack failed to \(what) (\(detail)).")
        default:
            return TPMError(.failed, "The TPM failed to \(what) (\(detail)).")
        }
    }

    private static func zero<T>(_ value: inout T) {
        withUnsafeMutableBytes(of: &value) { _ = $0.initializeMemory(as: UInt8.self, repeating: 0) }
    }
}

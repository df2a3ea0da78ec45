import Foundation
internal import WireCrypto

/// The keychain behind SecItemAdd/CopyMatching/Update/Delete: in memory, one per process by
/// default, never written to disk. iOS gives each app its own keychain; here several apps (the
/// seed apps, in one test process) can each be given their own with `withKeychain(_:_:)`.
/// Everything is always "unlocked": accessibility values are stored and matched, not enforced.
public final class InMemoryKeychain: @unchecked Sendable {
    /// The process-wide keychain SecItem functions use unless `withKeychain` says otherwise.
    public static let shared = InMemoryKeychain()

    @TaskLocal static var override: InMemoryKeychain?

    /// The keychain SecItem functions use on this task right now.
    static var current: InMemoryKeychain { override ?? shared }

    let lock = NSLock()
    /// Read under `lock` (KeychainRecords.swift reads them for an audit).
    var items: [Item] = []

    public init() { Self.register(self) }

    /// Runs `body` with SecItem calls (and permanent key generation) going to `keychain`.
    public static func withKeychain<R>(_ keychain: InMemoryKeychain, _ body: () throws -> R) rethrows -> R {
        try $override.withValue(keychain) { try body() }
    }

    /// How many items the keychain holds.
    public var count: Int { lock.lock(); defer { lock.unlock() }; return items.count }

    /// Removes every item (for tests that need a clean keychain).
    public func removeAll() { lock.lock(); items.removeAll(); lock.unlock() }

    // MARK: Items

    struct Item {
        var itemClass: String
        var attributes: [String: Value]
        var data: Data?
        var ref: AnyObject?
        /// The keys of the dictionary the app stored the item with: what it asked for, before defaults.
        var requested: Set<String> = []
        /// Stored by SecKeyCreateRandomKey because the app asked for kSecAttrIsPermanent.
        var generatedPermanent = false
    }

    /// Attribute values in one comparable form (CF values arrive as Swift or Foundation objects).
    enum Value: Hashable {
        case data(Data)
        case string(String)
        case number(Int)
        case bool(Bool)
        case date(Date)
        /// kSecAttrAccessControl (SecAccessControl.swift).
        case accessControl(SecAccessControl)

        var object: Any {
            switch self {
            case let .data(data): return data
            case let .string(text): return text
            case let .number(number): return number
            case let .bool(flag): return flag
            case let .date(date): return date
            case let .accessControl(control): return control
            }
        }
    }

    // MARK: Attribute vocabulary

    /// Keys that are not item attributes: how to search and what to return.
    static let controlKeys: Set<String> = [
        kSecClass, kSecMatchLimit, kSecReturnData, kSecReturnAttributes, kSecReturnRef, kSecReturnPersistentRef,
        kSecValueData, kSecValueRef, kSecValuePersistentRef, kSecUseDataProtectionKeychain, kSecUseOperationPrompt,
        kSecUseAuthenticationUI, kSecMatchCaseInsensitive, kSecAttrIsPermanent, kSecUseAuthenticationContext, "u_NoAuthUI",
    ].reduce(into: Set<String>()) { $0.insert($1 as String) }

    static let blobKeys: Set<String> = [kSecAttrApplicationTag, kSecAttrApplicationLabel, kSecAttrGeneric, kSecAttrSubject,
                                        kSecAttrIssuer, kSecAttrSerialNumber, kSecAttrSubjectKeyID, kSecAttrPublicKeyHash]
        .reduce(into: Set<String>()) { $0.insert($1 as String) }
    static let numberKeys: Set<String> = [kSecAttrKeySizeInBits, kSecAttrEffectiveKeySize, kSecAttrPort, kSecAttrCertificateType,
                                          kSecAttrCertificateEncoding]
        .reduce(into: Set<String>()) { $0.insert($1 as String) }
    static let boolKeys: Set<String> = [kSecAttrSynchronizable, kSecAttrIsInvisible, kSecAttrIsNegative, kSecAttrCanEncrypt,
                                        kSecAttrCanDecrypt, kSecAttrCanDerive, kSecAttrCanSign, kSecAttrCanVerify, kSecAttrCanWrap,
                                        kSecAttrCanUnwrap, kSecAttrIsExtractable, kSecAttrIsSensitive]
        .reduce(into: Set<String>()) { $0.insert($1 as String) }
    static let stringKeys: Set<String> = [kSecAttrAccessible, kSecAttrAccessGroup, kSecAttrDescription, kSecAttrComment,
                                          kSecAttrCreator, kSecAttrType, kSecAttrLabel, kSecAttrAccount, kSecAttrService,
                                          kSecAttrSecurityDomain, kSecAttrServer, kSecAttrProtocol, kSecAttrAuthenticationType,
                                          kSecAttrPath, kSecAttrKeyClass, kSecAttrTokenID]
        .reduce(into: Set<String>()) { $0.insert($1 as String) }
    static let dateKeys: Set<String> = [kSecAttrCreationDate as String, kSecAttrModificationDate as String]
    /// String attributes Apple's schema keeps as blobs (SecItemSchema.c: `v6acct "acct", Blob`, svce,
    /// desc, icmt, labl, sdmn, srvr, atyp, path): securityd takes a CFString or a CFData for them, and
    /// returns what it was given. A String and a Data of the same bytes are different values, as in
    /// securityd's SQLite (text and blob never compare equal).
    static let stringOrBlobKeys: Set<String> = [kSecAttrAccount, kSecAttrService, kSecAttrDescription, kSecAttrComment, kSecAttrLabel,
                                                kSecAttrSecurityDomain, kSecAttrServer, kSecAttrAuthenticationType, kSecAttrPath]
        .reduce(into: Set<String>()) { $0.insert($1 as String) }
    /// Apple's kSecAttrAccessible values (SecAccessControl.m, `SecAccessControlSetProtection`: any
    /// other is errSecParam, "SecAccessControl: invalid protection").
    static let protections: Set<String> = ["ak", "ck", "dk", "aku", "cku", "dku", "akpu"]

    /// The attributes each class has (Apple's SecItemSchema.c: the current `genp`, `inet`, `cert` and
    /// `keys` classes' attribute lists, limited to the kSecAttr names this module knows); an attribute of
    /// another class is errSecNoSuchAttr ("attribute %@ not found in class %@", SecItemDb.c,
    /// `SecDbAttrWithKey`). An identity takes the certificate's and the key's (the same function).
    static let attributesByClass: [String: Set<String>] = {
        func names(_ list: [CFString]) -> Set<String> { Set(list.map { $0 as String }) }
        let common = names([kSecAttrAccessible, kSecAttrAccessGroup, kSecAttrSynchronizable, kSecAttrCreationDate,
                            kSecAttrModificationDate, kSecAttrLabel, kSecAttrAccessControl, kSecAttrTokenID])
        let password = common.union(names([kSecAttrDescription, kSecAttrComment, kSecAttrCreator, kSecAttrType, kSecAttrIsInvisible,
                                           kSecAttrIsNegative, kSecAttrAccount]))
        let certificate = common.union(names([kSecAttrCertificateType, kSecAttrCertificateEncoding, kSecAttrSubject, kSecAttrIssuer,
                                              kSecAttrSerialNumber, kSecAttrSubjectKeyID, kSecAttrPublicKeyHash]))
        let key = common.union(names([kSecAttrKeyClass, kSecAttrApplicationLabel, kSecAttrApplicationTag, kSecAttrCreator, kSecAttrKeyType,
                                      kSecAttrKeySizeInBits, kSecAttrEffectiveKeySize, kSecAttrIsSensitive, kSecAttrIsExtractable,
                                      kSecAttrCanEncrypt, kSecAttrCanDecrypt, kSecAttrCanDerive, kSecAttrCanSign, kSecAttrCanVerify,
                                      kSecAttrCanWrap, kSecAttrCanUnwrap]))
        return [
            ClassName.genericPassword: password.union(names([kSecAttrService, kSecAttrGeneric])),
            ClassName.internetPassword: password.union(names([kSecAttrSecurityDomain, kSecAttrServer, kSecAttrProtocol,
                                                              kSecAttrAuthenticationType, kSecAttrPort, kSecAttrPath])),
            ClassName.certificate: certificate,
            ClassName.key: key,
            kSecClassIdentity as String: certificate.union(key),
        ]
    }()

    /// The access group items go to when the app names none: on iOS the first of the app's
    /// keychain-access-groups, by default its application identifier, "<team ID>.<bundle ID>"
    /// (SecItemServer.c, `SecItemAdd`: the caller's first access group). Apps read it back to learn
    /// their team ID (the "bundle seed ID" idiom: an item's kSecAttrAccessGroup before the first dot);
    /// here the team ID is "CROSSCHECK" (ten characters, as Apple's are).
    public static let defaultAccessGroup = "CROSSCHECK.org.crosscheck.app-under-test"

    static let classes: Set<String> = [kSecClassGenericPassword, kSecClassInternetPassword, kSecClassCertificate, kSecClassKey,
                                       kSecClassIdentity].reduce(into: Set<String>()) { $0.insert($1 as String) }

    /// The attributes that make an item unique, per class (Apple's documented primary keys);
    /// adding a second item equal in all of them is errSecDuplicateItem.
    static func primaryKeys(of itemClass: String) -> [String] {
        let common = [kSecAttrAccessGroup as String, kSecAttrSynchronizable as String]
        switch itemClass {
        case ClassName.genericPassword:
            return [kSecAttrAccount, kSecAttrService].map { $0 as String } + common
        case ClassName.internetPassword:
            return [kSecAttrAccount, kSecAttrSecurityDomain, kSecAttrServer, kSecAttrProtocol, kSecAttrAuthenticationType,
                    kSecAttrPort, kSecAttrPath].map { $0 as String } + common
        case ClassName.certificate:
            return [kSecAttrCertificateType, kSecAttrIssuer, kSecAttrSerialNumber].map { $0 as String } + common
        case ClassName.key:
            return [kSecAttrApplicationLabel, kSecAttrApplicationTag, kSecAttrKeyType, kSecAttrKeySizeInBits,
                    kSecAttrEffectiveKeySize, kSecAttrKeyClass, kSecAttrCreator].map { $0 as String } + common
        default:
            return primaryKeys(of: kSecClassCertificate as String) + primaryKeys(of: kSecClassKey as String)
        }
    }

    /// Normalises one attribute value; nil when the value has a type the attribute cannot take.
    static func normalise(_ key: String, _ value: Any) -> Value? {
        if blobKeys.contains(key) { return tagData(value).map(Value.data) }
        if numberKeys.contains(key) { return integerAttribute(value).map(Value.number) }
        if boolKeys.contains(key) {
            if let flag = value as? Bool { return .bool(flag) }
            if let number = value as? NSNumber { return .bool(number.boolValue) }
            return nil
        }
        if dateKeys.contains(key) { return (value as? Date).map(Value.date) }
        if stringOrBlobKeys.contains(key) {
            if let text = stringOrNumberAttribute(value) { return .string(text) }
            switch value {
            case let data as Data: return .data(data)
            case let data as NSData: return .data(Data(data))
            default: return nil
            }
        }
        if key == kSecAttrAccessControl as String { return (value as? SecAccessControl).map(Value.accessControl) }
        // kSecAttrKeyType is kSecAttrType ("type"), one of the string keys.
        if stringKeys.contains(key) { return stringOrNumberAttribute(value).map(Value.string) }
        return nil
    }

    /// The attribute part of a dictionary for an item of `itemClass`, checked and normalised; control
    /// keys are skipped.
    static func attributes(of dictionary: [String: Any], itemClass: String) -> Result<[String: Value], SecFailure> {
        var result: [String: Value] = [:]
        for (key, value) in dictionary where !controlKeys.contains(key) {
            if key == kSecAttrSynchronizable as String, stringAttribute(value) == kSecAttrSynchronizableAny as String { continue }
            guard blobKeys.contains(key) || numberKeys.contains(key) || boolKeys.contains(key) || stringKeys.contains(key)
                    || dateKeys.contains(key) || key == kSecAttrAccessControl as String else {
                return .failure(SecFailure(errSecNoSuchAttr, "unknown attribute \(key)"))
            }
            guard attributesByClass[itemClass]?.contains(key) ?? true else {
                let name = AttributeName.byCode[key].map { "\($0) (\(key))" } ?? key
                return .failure(SecFailure(errSecNoSuchAttr, "attribute \(name) not found in class \(itemClass)"))
            }
            guard let normalised = normalise(key, value) else {
                return .failure(SecFailure(errSecParam, "attribute \(key) has a value of the wrong type (\(type(of: value)))"))
            }
            if key == kSecAttrAccessible as String, case let .string(protection) = normalised, !protections.contains(protection) {
                return .failure(SecFailure(errSecParam, "SecAccessControl: invalid protection \(protection) (kSecAttrAccessible takes one of Apple's kSecAttrAccessible… values)"))
            }
            result[key] = normalised
        }
        return .success(result)
    }

    static func itemClass(of dictionary: [String: Any]) -> Result<String, SecFailure> {
        if let name = stringAttribute(dictionary[kSecClass as String]) {
            return classes.contains(name) ? .success(name) : .failure(SecFailure(errSecNoSuchClass, "unknown kSecClass \(name)"))
        }
        switch dictionary[kSecValueRef as String] {
        case is SecKey: return .success(kSecClassKey as String)
        case is SecCertificate: return .success(kSecClassCertificate as String)
        default: return .failure(SecFailure(errSecParam, "kSecClass is missing"))
        }
    }

    /// The accessibility classes an item keeps to this device (Apple's names end in ThisDeviceOnly).
    static let thisDeviceOnly: Set<String> = [kSecAttrAccessibleWhenUnlockedThisDeviceOnly as String, kSecAttrAccessibleAfterFirstUnlockThisDeviceOnly as String,
                                              kSecAttrAccessibleWhenPasscodeSetThisDeviceOnly as String, "dku"]

    // MARK: Operations

    func add(_ dictionary: [String: Any], generatedPermanent: Bool = false) -> Result<Item, SecFailure> {
        let itemClass: String
        switch Self.itemClass(of: dictionary) { case let .success(name): itemClass = name; case let .failure(f): return .failure(f) }
        var attributes: [String: Value]
        switch Self.attributes(of: dictionary, itemClass: itemClass) { case let .success(a): attributes = a; case let .failure(f): return .failure(f) }
        var item = Item(itemClass: itemClass, attributes: [:], data: nil, ref: nil, requested: Set(dictionary.keys),
                        generatedPermanent: generatedPermanent)
        if let ref = dictionary[kSecValueRef as String] {
            switch ref {
            case let key as SecKey where itemClass == kSecClassKey as String:
                attributes.merge(Self.derivedAttributes(of: key)) { given, _ in given }
                item.data = try? key.externalRepresentation()
                item.ref = key
            case let certificate as SecCertificate where itemClass == kSecClassCertificate as String:
                attributes.merge(Self.derivedAttributes(of: certificate)) { given, _ in given }
                item.data = certificate.x509.der
                item.ref = certificate
            default:
                return .failure(SecFailure(errSecParam, "kSecValueRef \(type(of: ref)) does not fit kSecClass \(itemClass)"))
            }
        }
        if let value = dictionary[kSecValueData as String] {
            guard let data = tagData(value) else { return .failure(SecFailure(errSecParam, "kSecValueData must be Data")) }
            item.data = data
        }
        if dictionary[kSecValuePersistentRef as String] != nil {
            return .failure(SecFailure(errSecUnimplemented, "persistent references are not provided here"))
        }
        if case let .accessControl(control)? = attributes[kSecAttrAccessControl as String] {
            switch accessibility(given: attributes[kSecAttrAccessible as String], control: control) {
            case let .success(value): attributes[kSecAttrAccessible as String] = value
            case let .failure(f): return .failure(f)
            }
        }
        // securityd's default protection (SecDbQuery.c, `query_infer_keyclass`): "third party certs are
        // always dk" (kSecAttrAccessibleAlways); everything else ak (kSecAttrAccessibleWhenUnlocked).
        let defaultProtection = itemClass == ClassName.certificate ? "dk" : kSecAttrAccessibleWhenUnlocked as String
        attributes[kSecAttrAccessible as String] = attributes[kSecAttrAccessible as String] ?? .string(defaultProtection)
        attributes[kSecAttrSynchronizable as String] = attributes[kSecAttrSynchronizable as String] ?? .bool(false)
        attributes[kSecAttrAccessGroup as String] = attributes[kSecAttrAccessGroup as String] ?? .string(Self.defaultAccessGroup)
        // A password's account (and a generic password's service) the app leaves out is an empty blob:
        // SecItemSchema.c flags them not-null with an empty default, and SecDbItem.c
        // (`SecDbAttrCopyDefaultValue`) makes a Blob's default an empty CFData.
        if itemClass == ClassName.genericPassword || itemClass == ClassName.internetPassword {
            attributes[kSecAttrAccount as String] = attributes[kSecAttrAccount as String] ?? .data(Data())
        }
        if itemClass == ClassName.genericPassword {
            attributes[kSecAttrService as String] = attributes[kSecAttrService as String] ?? .data(Data())
        }
        // Apple's kSecAttrAccessible: "For any item marked as synchronizable, the value for the
        // kSecAttrAccessible key may only be one whose name does not end with ThisDeviceOnly, as
        // those cannot sync to another device." (An access control's protection counts too.)
        if case .bool(true)? = attributes[kSecAttrSynchronizable as String], case let .string(accessible)? = attributes[kSecAttrAccessible as String],
           Self.thisDeviceOnly.contains(accessible) {
            return .failure(SecFailure(errSecParam, "kSecAttrSynchronizable with a ThisDeviceOnly accessibility (\(accessible)): such an item cannot sync to another device"))
        }
        let now = Date()
        attributes[kSecAttrCreationDate as String] = .date(now)
        attributes[kSecAttrModificationDate as String] = .date(now)
        item.attributes = attributes
        lock.lock(); defer { lock.unlock() }
        if items.contains(where: { $0.itemClass == itemClass && Self.sameIdentity($0, item) }) {
            return .failure(SecFailure(errSecDuplicateItem, "the item already exists"))
        }
        items.append(item)
        return .success(item)
    }

    func addKey(_ key: SecKey, attributes: [String: Any]) -> OSStatus {
        var dictionary = attributes.filter { $0.key != kSecAttrIsPermanent as String && $0.key != kSecPrivateKeyAttrs as String
            && $0.key != kSecPublicKeyAttrs as String }
        dictionary[kSecClass as String] = kSecClassKey as String
        dictionary[kSecValueRef as String] = key
        switch add(dictionary, generatedPermanent: true) { case .success: return errSecSuccess; case let .failure(f): return f.status }
    }

    static func derivedAttributes(of key: SecKey) -> [String: Value] {
        [
            kSecAttrKeyType as String: .string((key.isEC ? kSecAttrKeyTypeECSECPrimeRandom : kSecAttrKeyTypeRSA) as String),
            kSecAttrKeyClass as String: .string((key.isPrivate ? kSecAttrKeyClassPrivate : kSecAttrKeyClassPublic) as String),
            kSecAttrKeySizeInBits as String: .number(key.bits),
            kSecAttrEffectiveKeySize as String: .number(key.bits),
            kSecAttrApplicationLabel as String: .data(key.applicationLabel),
            kSecAttrCanEncrypt as String: .bool(!key.isPrivate),
            kSecAttrCanDecrypt as String: .bool(key.isPrivate),
        ]
    }

    static func derivedAttributes(of certificate: SecCertificate) -> [String: Value] {
        var attributes: [String: Value] = [
            kSecAttrCertificateType as String: .number(3),  // X.509 v3
            kSecAttrCertificateEncoding as String: .number(3),  // DER
            kSecAttrSubject as String: .data(certificate.x509.subjectDER),
            kSecAttrIssuer as String: .data(certificate.x509.issuerDER),
            kSecAttrSerialNumber as String: .data(certificate.x509.serialNumber),
        ]
        if let summary = certificate.subjectSummary { attributes[kSecAttrLabel as String] = .string(summary) }
        return attributes
    }

    static func sameIdentity(_ a: Item, _ b: Item) -> Bool {
        primaryKeys(of: a.itemClass).allSatisfy { a.attributes[$0] == b.attributes[$0] }
    }

    /// Items of the query's class whose attributes equal every attribute the query gives.
    func matching(_ query: [String: Any]) -> Result<[Int], SecFailure> {
        let itemClass: String
        switch Self.itemClass(of: query) { case let .success(name): itemClass = name; case let .failure(f): return .failure(f) }
        var wanted: [String: Value]
        switch Self.attributes(of: query, itemClass: itemClass) { case let .success(a): wanted = a; case let .failure(f): return .failure(f) }
        let anySync = stringAttribute(query[kSecAttrSynchronizable as String]) == kSecAttrSynchronizableAny as String
        if !anySync, wanted[kSecAttrSynchronizable as String] == nil { wanted[kSecAttrSynchronizable as String] = .bool(false) }
        let ref = query[kSecValueRef as String] as AnyObject?
        return .success(items.indices.filter { index in
            let item = items[index]
            guard item.itemClass == itemClass, wanted.allSatisfy({ item.attributes[$0.key] == $0.value }) else { return false }
            if let ref { return item.ref === ref || Self.sameKeyMaterial(item.ref, ref) }
            return true
        })
    }

    static func sameKeyMaterial(_ a: AnyObject?, _ b: AnyObject) -> Bool {
        guard let a = a as? SecKey, let b = b as? SecKey, a.isPrivate == b.isPrivate else { return false }
        return (try? a.externalRepresentation()) == (try? b.externalRepresentation())
    }

    func copyMatching(_ query: [String: Any]) -> Result<AnyObject?, SecFailure> {
        // The limit: one value (the default), all as an array, or the first n as an array.
        var limit: Int? = 1
        switch query[kSecMatchLimit as String] {
        case nil: break
        case let value where stringAttribute(value) == kSecMatchLimitAll as String: limit = nil
        case let value where stringAttribute(value) == kSecMatchLimitOne as String: break
        case let value:
            guard let count = integerAttribute(value), count > 0 else {
                return .failure(SecFailure(errSecParam, "kSecMatchLimit must be kSecMatchLimitOne, kSecMatchLimitAll or a positive number"))
            }
            limit = count
        }
        // SecItemDb.c (`s3dl_query`, `s3dl_query_row`): a limit of 1, kSecMatchLimitOne or the number 1,
        // answers the one value; any other an array.
        let asArray = limit != 1
        lock.lock(); defer { lock.unlock() }
        let found: [Int]
        switch matching(query) { case let .success(indices): found = indices; case let .failure(f): return .failure(f) }
        let reachable = promptSkipped(query) ? found.filter { !needsUser(items[$0], query) } : found
        guard !reachable.isEmpty else { return .failure(SecFailure(errSecItemNotFound, "no matching item")) }
        let chosen = limit.map { Array(reachable.prefix($0)) } ?? reachable
        for index in chosen where needsUser(items[index], query) {
            if let failure = authorize(Self.accessControl(of: items[index]), query: query) { return .failure(failure) }
        }
        return collect(chosen.map { shape(items[$0], query) }, asArray: asArray)
    }

    static func accessControl(of item: Item) -> SecAccessControl? {
        if case let .accessControl(control)? = item.attributes[kSecAttrAccessControl as String] { return control }
        return nil
    }

    /// Reading this item's secret asks the user: it has access control with a user constraint and
    /// the query returns its data (a key's reference asks only when the key is used).
    func needsUser(_ item: Item, _ query: [String: Any]) -> Bool {
        guard Self.accessControl(of: item)?.asksUser == true else { return false }
        return boolAttribute(query[kSecReturnData as String])
            || (boolAttribute(query[kSecReturnRef as String]) && item.itemClass != ClassName.key)
    }

    private func collect(_ shaped: [Result<AnyObject?, SecFailure>], asArray: Bool) -> Result<AnyObject?, SecFailure> {
        var objects: [AnyObject] = []
        for result in shaped {
            switch result {
            case let .failure(f): return .failure(f)
            case let .success(object): if let object { objects.append(object) }
            }
        }
        if asArray { return .success(objects.isEmpty ? nil : NSArray(array: objects)) }
        return .success(objects.first)
    }

    /// What SecItem returns for one item: the one kind asked for, or a dictionary when several are.
    func shape(_ item: Item, _ query: [String: Any]) -> Result<AnyObject?, SecFailure> {
        let wantData = boolAttribute(query[kSecReturnData as String])
        let wantRef = boolAttribute(query[kSecReturnRef as String])
        let wantAttributes = boolAttribute(query[kSecReturnAttributes as String])
        if boolAttribute(query[kSecReturnPersistentRef as String]) {
            return .failure(SecFailure(errSecUnimplemented, "persistent references are not provided here"))
        }
        var ref: AnyObject? = nil
        if wantRef {
            switch reference(for: item) { case let .success(r): ref = r; case let .failure(f): return .failure(f) }
        }
        if wantRef && !wantData && !wantAttributes && ref == nil { return .success(nil) }
        let kinds = [wantData, wantRef, wantAttributes].filter { $0 }.count
        if kinds == 0 { return .success(nil) }
        if kinds == 1 {
            if wantData { return .success(item.data.map { $0 as NSData }) }
            if wantRef { return .success(ref) }
        }
        var dictionary: [String: Any] = [:]
        if wantAttributes {
            dictionary = item.attributes.mapValues(\.object)
            dictionary[kSecClass as String] = item.itemClass
            // A key's type and class are numbers in securityd's schema (SecItemSchema.c: `v6keytype "type",
            // Number`, `v6kcls "kcls", Number`), so they come back as NSNumber (42, 73; 0, 1), not the strings given.
            if item.itemClass == ClassName.key {
                for name in [kSecAttrKeyType as String, kSecAttrKeyClass as String] {
                    if case let .string(text)? = item.attributes[name], let number = Int(text) { dictionary[name] = NSNumber(value: number) }
                }
            }
        }
        if wantData, let data = item.data { dictionary[kSecValueData as String] = data }
        if wantRef, let ref { dictionary[kSecValueRef as String] = ref }
        return .success(NSDictionary(dictionary: dictionary))
    }

    /// The SecKey/SecCertificate for an item, made from its data when it was stored as data; nil for a
    /// password, which has no reference type on iOS (SecItem.m: no ref is made for genp/inet items).
    func reference(for item: Item) -> Result<AnyObject?, SecFailure> {
        if let ref = item.ref { return .success(ref) }
        guard let data = item.data else { return .failure(SecFailure(errSecItemNotFound, "the item has no value")) }
        switch item.itemClass {
        case ClassName.key:
            switch secKey(from: data, attributes: item.attributes.mapValues(\.object)) {
            case let .success(key): return .success(key)
            case let .failure(f): return .failure(f)
            }
        case ClassName.certificate:
            guard let certificate = SecCertificateCreateWithData(nil, data as NSData) else {
                return .failure(SecFailure(errSecDecode, "the stored certificate data does not decode"))
            }
            return .success(certificate)
        default:
            return .success(nil)
        }
    }

    func update(_ query: [String: Any], _ changes: [String: Any]) -> OSStatus {
        for key in [kSecClass, kSecMatchLimit, kSecReturnData, kSecReturnRef, kSecReturnAttributes, kSecReturnPersistentRef]
        where changes[key as String] != nil {
            return errSecParam
        }
        // SecItemServer.c, `_SecItemUpdate`: "return data/attributes/ref/persistent ref not supported by
        // update" (errSecReturn…Unsupported, all errSecParam in SecBasePriv.h) for a query that asks for
        // a result.
        for key in [kSecReturnData, kSecReturnAttributes, kSecReturnRef, kSecReturnPersistentRef] where boolAttribute(query[key as String]) {
            return errSecParam
        }
        let itemClass: String
        switch Self.itemClass(of: query) { case let .success(name): itemClass = name; case let .failure(f): return f.status }
        let newAttributes: [String: Value]
        switch Self.attributes(of: changes, itemClass: itemClass) { case let .success(a): newAttributes = a; case let .failure(f): return f.status }
        var newData: Data? = nil
        if let value = changes[kSecValueData as String] {
            guard let data = tagData(value) else { return errSecParam }
            newData = data
        }
        lock.lock(); defer { lock.unlock() }
        let found: [Int]
        switch matching(query) { case let .success(indices): found = indices; case let .failure(f): return f.status }
        guard !found.isEmpty else { return errSecItemNotFound }
        var updated = items
        for index in found {
            updated[index].attributes.merge(newAttributes) { $1 }
            updated[index].attributes[kSecAttrModificationDate as String] = .date(Date())
            if let newData { updated[index].data = newData }
        }
        for (i, a) in updated.enumerated() {
            for (j, b) in updated.enumerated() where i < j && a.itemClass == b.itemClass && Self.sameIdentity(a, b) {
                return errSecDuplicateItem
            }
        }
        items = updated
        return errSecSuccess
    }

    func delete(_ query: [String: Any]) -> OSStatus {
        // SecItemServer.c, `_SecItemDelete`: "match limit not supported by delete" (any kSecMatchLimit but
        // kSecMatchLimitAll) and "match not supported by delete" (any kSecMatch… key, kSecMatchLimitAll
        // included: it is one of the query's match pairs, SecDbQuery.c `query_add_match`); both are
        // errSecParam (SecBasePriv.h). kSecReturn… keys are not checked there: a delete ignores them.
        if query.keys.contains(where: { $0.hasPrefix("m_") }) { return errSecParam }
        lock.lock(); defer { lock.unlock() }
        let found: [Int]
        switch matching(query) { case let .success(indices): found = indices; case let .failure(f): return f.status }
        guard !found.isEmpty else { return errSecItemNotFound }
        let doomed = Set(found)
        items = items.enumerated().filter { !doomed.contains($0.offset) }.map(\.element)
        return errSecSuccess
    }
}

/// The item class names as Swift strings, for `switch`.
enum ClassName {
    static let genericPassword = kSecClassGenericPassword as String
    static let internetPassword = kSecClassInternetPassword as String
    static let certificate = kSecClassCertificate as String
    static let key = kSecClassKey as String
}

// MARK: - The SecItem API

/// Adds an item. kSecClass (or a kSecValueRef that implies it) is required; an item equal to an
/// existing one in its class's primary-key attributes is errSecDuplicateItem; an unknown attribute
/// is errSecNoSuchAttr; a value of the wrong type is errSecParam.
@discardableResult
public func SecItemAdd(_ attributes: CFDictionary, _ result: UnsafeMutablePointer<CFTypeRef?>?) -> OSStatus {
    let dictionary = entries(of: attributes)
    let keychain = InMemoryKeychain.current
    switch keychain.add(dictionary) {
    case let .failure(failure): return failure.status
    case let .success(item):
        if let result {
            switch keychain.shape(item, dictionary) {
            case let .success(object): result.pointee = object
            case let .failure(failure): return failure.status
            }
        }
        return errSecSuccess
    }
}

/// Finds items: errSecItemNotFound when none match. kSecMatchLimitOne (the default) returns one
/// value, kSecMatchLimitAll an array; kSecReturnData/Ref/Attributes choose what each value is.
@discardableResult
public func SecItemCopyMatching(_ query: CFDictionary, _ result: UnsafeMutablePointer<CFTypeRef?>?) -> OSStatus {
    switch InMemoryKeychain.current.copyMatching(entries(of: query)) {
    case let .failure(failure): return failure.status
    case let .success(object):
        result?.pointee = object
        return errSecSuccess
    }
}

/// Changes every matching item; errSecItemNotFound when none match, errSecDuplicateItem (and no
/// change) when the update would make two items equal.
@discardableResult
public func SecItemUpdate(_ query: CFDictionary, _ attributesToUpdate: CFDictionary) -> OSStatus {
    InMemoryKeychain.current.update(entries(of: query), entries(of: attributesToUpdate))
}

/// Deletes every matching item; errSecItemNotFound when none match.
@discardableResult
public func SecItemDelete(_ query: CFDictionary) -> OSStatus {
    InMemoryKeychain.current.delete(entries(of: query))
}

// MARK: - Random bytes

public typealias SecRandomRef = OpaquePointer
/// The default generator (nil, as on Apple platforms): the kernel CSPRNG through WireCrypto.
nonisolated(unsafe) public let kSecRandomDefault: SecRandomRef? = nil

/// Fills `bytes` with `count` cryptographically secure random bytes; returns errSecSuccess.
@discardableResult
public func SecRandomCopyBytes(_ rnd: SecRandomRef?, _ count: Int, _ bytes: UnsafeMutableRawPointer) -> Int32 {
    guard count > 0 else { return errSecSuccess }
    let random = secureRandomBytes(count)
    random.withUnsafeBytes { bytes.copyMemory(from: $0.baseAddress!, byteCount: count) }
    return errSecSuccess
}

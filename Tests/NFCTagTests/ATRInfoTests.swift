import NFCTag
import TestSupport
import Testing

@Test(
    arguments: [
        ("3B 8F 80 01 80 4F 0C A0 00 00 03 06 03 00 03 00 00 00 00 68", TagTechnology.type2),
        ("3B 8F 80 01 80 4F 0C A0 00 00 03 06 03 00 01 00 00 00 00 6A", .mifareClassic),
        ("3B 8F 80 01 80 4F 0C A0 00 00 03 06 03 00 02 00 00 00 00 69", .mifareClassic),
        ("3B 8F 80 01 80 4F 0C A0 00 00 03 06 03 00 26 00 00 00 00 4D", .mifareClassic),
        ("3B 8F 80 01 80 4F 0C A0 00 00 03 06 11 00 3B 00 00 00 00 42", .felica),
        ("3B 8F 80 01 80 4F 0C A0 00 00 03 06 11 F0 11 00 00 00 00 8E", .felica),
        ("3B 8F 80 01 80 4F 0C A0 00 00 03 06 11 F0 12 00 00 00 00 8D", .felica),
        ("3B 8F 80 01 80 4F 0C A0 00 00 03 06 0B 00 14 00 00 00 00 77", .type5),
        ("3B 8F 80 01 80 4F 0C A0 00 00 03 06 03 F0 04 00 00 00 00 9F", .type1),  // Topaz on an ACR122U
        ("3B 8F 80 01 80 4F 0C A0 00 00 03 06 03 00 3A 00 00 00 00 51", .type2),  // unknown name on 14443A-3
        ("3B 80 80 01 01", .iso14443Part4),  // phone HCE
        ("3B 81 80 01 80 80", .iso14443Part4),  // DESFire EV1
        ("3B 88 80 01 00 00 00 00 33 81 81 00 3A", .iso14443Part4),  // bank card
        ("", .iso14443Part4),
        ("3B 8F 80 01 80 4F 0C A0 00 00 03 06 03", .iso14443Part4),  // truncated: not a storage card ATR
    ] as [(String, TagTechnology)])
func atrTechnology(atr: String, technology: TagTechnology) {
    #expect(ATRInfo(atr: Hex.bytes(atr)).technology == technology)
}

@Test(
    arguments: [
        (
            "3B 8F 80 01 80 4F 0C A0 00 00 03 06 03 00 03 00 00 00 00 68", ATRInfo.Standard.iso14443A3,
            ATRInfo.CardName.mifareUltralight
        ),
        ("3B 8F 80 01 80 4F 0C A0 00 00 03 06 03 00 01 00 00 00 00 6A", .iso14443A3, .mifareClassic1K),
        ("3B 8F 80 01 80 4F 0C A0 00 00 03 06 03 00 02 00 00 00 00 69", .iso14443A3, .mifareClassic4K),
        ("3B 8F 80 01 80 4F 0C A0 00 00 03 06 03 00 26 00 00 00 00 4D", .iso14443A3, .mifareClassicMini),
        ("3B 8F 80 01 80 4F 0C A0 00 00 03 06 11 00 3B 00 00 00 00 42", .felica, .felica),
        ("3B 8F 80 01 80 4F 0C A0 00 00 03 06 03 F0 04 00 00 00 00 9F", .iso14443A3, .topaz),
        ("3B 8F 80 01 80 4F 0C A0 00 00 03 06 0B 00 14 00 00 00 00 77", .iso15693(part: 3), .other(0x0014)),
        ("3B 8F 80 01 80 4F 0C A0 00 00 03 06 07 00 06 00 00 00 00 6C", .iso14443B3, .other(0x0006)),
    ] as [(String, ATRInfo.Standard, ATRInfo.CardName)])
func atrStorageCard(atr: String, standard: ATRInfo.Standard, name: ATRInfo.CardName) {
    let info = ATRInfo(atr: Hex.bytes(atr))
    #expect(info.storageCard?.standard == standard)
    #expect(info.storageCard?.name == name)
}

@Test(arguments: ["3B 80 80 01 01", "3B 81 80 01 80 80", ""])
func atrProcessorCardHasNoStorageCard(atr: String) {
    #expect(ATRInfo(atr: Hex.bytes(atr)).storageCard == nil)
}

@Test(
    arguments: [
        "3B 8F 80 01 80 4F 0C A0 00 00 03 06 07 00 06 00 00 00 00 6C"  // SR176 on 14443B-3
    ])
func atrUnplaceableStorageCard(atr: String) {
    #expect(ATRInfo(atr: Hex.bytes(atr)).technology == nil)
}

import Foundation
import Testing
import WPTestThreads
@testable import WPClient

/// The captured WinPower responses decode to exactly their values.
@Suite(.ownThreads, .timeLimit(.minutes(3))) struct DecoderSampleTests {
    static func fixture(_ name: String) throws -> [UInt8] {
        let url = try #require(Bundle.module.url(forResource: name, withExtension: "json", subdirectory: "Fixtures"))
        return Array(try Data(contentsOf: url))
    }

    @Test func deviceListSampleDecodesExactly() throws {
        let page = try DeviceListDecoder().decodeDeviceList(try Self.fixture("device-list-response"))
        #expect(page.total == 1)
        #expect(page.pageSize == 20)
        #expect(page.currentPage == 1)
        #expect(page.code == "000000")
        #expect(page.message == "OK")
        #expect(page.isSuccess)
        #expect(page.entryCount == 1)
        #expect(page.dropped.isEmpty)
        let device = try #require(page.devices.first)

        #expect(device.asset == AssetDevice(
            id: "e156e6cb-41cb-4b35-b0dd-869929186a5c", deviceType: 1, model: "ON-LINE", alias: "C3K", protocolId: 13,
            connectType: 1, comPort: "COM3", baudRate: 2400, areaId: "00000000-0000-0000-0000-000000000000",
            isActive: true, firmwareVersion: "03.09", createTime: "2025-10-13T08:37:57.048192", warrantyStatus: 0))
        #expect(device.id == "e156e6cb-41cb-4b35-b0dd-869929186a5c")
        #expect(device.connected == true)

        var realtime = RealtimeReadings()
        realtime.inputVolt1 = 236.8
        realtime.outputVoltageType = 0
        realtime.loadPercent = 6
        realtime.isCharging = 1
        realtime.inputTransformerType = 0
        realtime.batVoltP = 81.4
        realtime.outputCurrent1 = 1.1
        realtime.upsTemperature = 27.0
        realtime.mode = 3
        realtime.batRemainTime = 6723
        realtime.loadVa1 = 198
        realtime.faultCode = nil
        realtime.faultCodeReported = true
        realtime.outputVolt1 = 220.1
        realtime.outputFreq = 49.9
        realtime.inputFreq = 49.9
        realtime.loadTotalVa = 198
        realtime.batteryStatus = 2
        realtime.testStatus = 1
        realtime.loadTotalWatt = 195
        realtime.loadWatt1 = 195
        realtime.batCapacity = 90
        realtime.status = 1
        #expect(device.realtime == realtime)

        var config = DeviceConfig()
        config.inputPhaseNumber = 1
        config.ratingBatUnitNumber = 6
        config.upsModuleNumber = 1
        config.ratingBatVoltPerUnit = 12
        config.ratingVa = 3000
        config.inputSourceNumber = 1
        config.ratingVolt = 220
        config.outputPhaseNumber = 1
        config.ratingFreq = 50
        config.ratingBatVolt = 72
        #expect(device.config == config)

        var setting = DeviceSetting()
        setting.enableAudible = 1
        setting.enableBypassWhenTurnOff = 0
        setting.batteryModuleNumber = 1
        setting.autoTestPeriod = 90
        setting.enableAutoRestart = 1
        #expect(device.setting == setting)

        #expect(device.activeAlarms == ActiveAlarms(count: 0, codes: []))
        #expect(device.controlSupported == ControlSupport(supportQuickTest: true, supportDeepTest: true,
                                                          supportTestDuration: true, supportShutdown: true))
        #expect(device.isOnBattery == false)
        #expect(device.hasAlarm == false)
        #expect(device.hasFault == false)
    }

    /// Values equal what `Double(String)` gives for the same text: bit-exact, not approximately.
    @Test func sampleNumbersAreBitExact() throws {
        let page = try DeviceListDecoder().decodeDeviceList(try Self.fixture("device-list-response"))
        let realtime = try #require(page.devices.first).realtime
        #expect(realtime.inputVolt1?.bitPattern == Double("236.8")?.bitPattern)
        #expect(realtime.batVoltP?.bitPattern == Double("81.4")?.bitPattern)
        #expect(realtime.outputFreq?.bitPattern == Double("49.9")?.bitPattern)
    }

    @Test func loginSampleDecodes() throws {
        let reply = try DeviceListDecoder().decodeLogin(try Self.fixture("login-response"))
        #expect(reply.code == "000000")
        #expect(reply.message == "OK")
        #expect(reply.deviceId == "e156e6cb-41cb-4b35-b0dd-869929186a5c")
        let token = try #require(reply.token)
        #expect(token.hasPrefix("eyJhbGciOiJIUzUxMiJ9."))
        // The older build's payload: exp 1760367613 s, iat 1760365813 s (30 minutes).
        let claims = try #require(DeviceListDecoder().tokenClaims(token))
        #expect(claims == TokenClaims(exp: 1_760_367_613, iat: 1_760_365_813, createTime: 1_760_365_813_656,
                                      expireTime: 1_760_367_613_656, expiredMinutes: 30))
    }

    @Test func newerBuildLoginSampleCarriesExpInMilliseconds() throws {
        let reply = try DeviceListDecoder().decodeLogin(try Self.fixture("login-response-newer-build"))
        let token = try #require(reply.token)
        #expect(token.split(separator: ".").count == 3)
        #expect(token.hasPrefix("eyJ0eXAiOiJKV1QiLCJhbGciOiJIUzUxMiJ9.")) // {"typ":"JWT","alg":"HS512"}
        let claims = try #require(DeviceListDecoder().tokenClaims(token))
        #expect(claims.exp == 1_786_140_555_976)
        #expect(claims.iat == 1_786_138_755)
        #expect(claims.lifetime(fallback: .seconds(1)).lifetime == .seconds(1800))
        #expect(claims.lifetime(fallback: .seconds(1)).source == .expIat)
    }

    @Test func realUnauthorizedSampleDecodesAsCode401WithAStringData() throws {
        let body = try Self.fixture("unauthorized-response")
        let page = try DeviceListDecoder().decodeDeviceList(body)
        #expect(page.code == "401")
        #expect(page.devices.isEmpty && page.total == nil)
        #expect(page.message == "没有登录或者令牌过期")
        #expect(try DeviceListDecoder().decodeLogin(body).code == "401")
    }

    @Test func jwtWithoutLifetimeClaimsOrGarbageHasNoClaims() {
        let decoder = DeviceListDecoder()
        #expect(decoder.tokenClaims("not-a-jwt") == nil)
        #expect(decoder.tokenClaims("eyJhbGciOiJIUzUxMiJ9.eyJzdWIiOiJ4In0.sig") == nil) // {"sub":"x"}
        #expect(decoder.tokenClaims("a.%%%%%%%%%%%.b") == nil)
    }

    /// JWT segments are base64url (RFC 7515); a payload written in the standard alphabet, with
    /// `+` and `/` and its padding, reads too, as it did when the decoder was Foundation's.
    @Test func aPayloadInEitherBase64AlphabetIsRead() throws {
        // ">>>" and "???" encode to "Pj4+" and "Pz8/": bytes that differ between the alphabets.
        let payload = #"{"exp":1760367613,"iat":1760365813,"note":">>>???"}"#
        let standard = Data(payload.utf8).base64EncodedString()
        try #require(standard.contains("+") || standard.contains("/"))
        for segment in [standard, TokenFactory.base64URL(payload)] {
            let claims = try #require(DeviceListDecoder().tokenClaims("eyJhbGciOiJIUzUxMiJ9.\(segment).c2ln"), "\(segment)")
            #expect(claims.exp == 1_760_367_613 && claims.iat == 1_760_365_813)
        }
    }
}

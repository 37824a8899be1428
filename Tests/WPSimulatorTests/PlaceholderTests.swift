import Testing
import WPSimulator

@Suite struct PowerCurveTests {
    @Test func integralMatchesFineNumericalSum() {
        for index in 0..<5 {
            let curve = PowerCurve(deviceIndex: index)
            let (t0, t1) = (1_000.0, 4_600.0)
            let steps = 360_000
            let dt = (t1 - t0) / Double(steps)
            var sum = 0.0
            for k in 0..<steps {
                let t = t0 + (Double(k) + 0.5) * dt
                sum += curve.watts(at: t) * dt
            }
            let exact = curve.energyJoules(from: t0, to: t1)
            #expect(abs(sum - exact) / exact < 1e-9)
        }
    }

    @Test func curvesArePositiveAndDistinct() {
        let a = PowerCurve(deviceIndex: 0), b = PowerCurve(deviceIndex: 1)
        #expect(a != b)
        for t in stride(from: 0.0, to: 86_400, by: 97) {
            #expect(a.watts(at: t) > 0)
            #expect(b.watts(at: t) > 0)
        }
    }
}

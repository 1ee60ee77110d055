import SwiftSyntaxMacrosGenericTestSupport
import Testing

@Suite("@Inject expansion")
struct InjectMacroTests {
  @Test("lazy by default, eager with lazy: false")
  func lazyAndEager() {
    assertExpansion(
      """
      final class Coordinator {
        @Inject var analytics: AnalyticsServiceProtocol
        @Inject(lazy: false) var logger: LoggerProtocol
      }
      """,
      expandedSource: """
        final class Coordinator {
          var analytics: AnalyticsServiceProtocol {
            get {
              _analytics.value
            }
          }

          private let _analytics = ForgeInject.InjectedDependency<AnalyticsServiceProtocol>("Coordinator.analytics", lazy: true, fileID: "TestModule/test.swift", line: 2)
          var logger: LoggerProtocol {
            get {
              _logger.value
            }
          }

          private let _logger = ForgeInject.InjectedDependency<LoggerProtocol>("Coordinator.logger", lazy: false, fileID: "TestModule/test.swift", line: 3)
        }
        """
    )
  }

  @Test("on a let: an error with a fix-it turning it into a var")
  func onLet() {
    assertExpansion(
      """
      final class C {
        @Inject let service: Service
      }
      """,
      expandedSource: """
        final class C {
          let service: Service
        }
        """,
      diagnostics: [
        DiagnosticSpec(
          id: .init(domain: "ForgeInjectMacros", id: "injectOnLet"),
          message: "'@Inject' needs a 'var': the macro turns the property into a getter",
          line: 2,
          column: 11,
          fixIts: [FixItSpec(message: "Replace 'let' with 'var'")]
        )
      ],
      applyFixIts: ["Replace 'let' with 'var'"],
      fixedSource: """
        final class C {
          @Inject var service: Service
        }
        """
    )
  }

  @Test("on a computed property: an error with a fix-it removing the attribute")
  func onComputed() {
    assertExpansion(
      """
      final class C {
        @Inject var service: Service { Service() }
      }
      """,
      expandedSource: """
        final class C {
          var service: Service { Service() }
        }
        """,
      diagnostics: [
        DiagnosticSpec(
          id: .init(domain: "ForgeInjectMacros", id: "injectOnComputed"),
          message: "'@Inject' cannot be applied to a computed property",
          line: 2,
          column: 3,
          fixIts: [FixItSpec(message: "Remove '@Inject'")]
        )
      ],
      applyFixIts: ["Remove '@Inject'"],
      fixedSource: """
        final class C {
          var service: Service { Service() }
        }
        """
    )
  }

  @Test("without a type annotation: an error with a fix-it adding a placeholder type")
  func missingType() {
    assertExpansion(
      """
      final class C {
        @Inject var service
      }
      """,
      expandedSource: """
        final class C {
          var service
        }
        """,
      diagnostics: [
        DiagnosticSpec(
          id: .init(domain: "ForgeInjectMacros", id: "injectMissingType"),
          message: "'@Inject' needs the type of 'service' to resolve it; add a type annotation",
          line: 2,
          column: 15,
          fixIts: [FixItSpec(message: "Add a type annotation")]
        )
      ],
      applyFixIts: ["Add a type annotation"],
      fixedSource: """
        final class C {
          @Inject var service: <#Type#>
        }
        """
    )
  }

  @Test("with an initial value: an error with a fix-it removing it")
  func initialValue() {
    assertExpansion(
      """
      final class C {
        @Inject var service: Service = Service()
      }
      """,
      expandedSource: """
        final class C {
          var service: Service = Service()
        }
        """,
      diagnostics: [
        DiagnosticSpec(
          id: .init(domain: "ForgeInjectMacros", id: "injectInitialValue"),
          message: "'@Inject' resolves the property; it cannot have an initial value",
          line: 2,
          column: 32,
          fixIts: [FixItSpec(message: "Remove the initial value")]
        )
      ],
      applyFixIts: ["Remove the initial value"],
      fixedSource: """
        final class C {
          @Inject var service: Service
        }
        """
    )
  }

  @Test("on a static property or a function: an error with a fix-it removing the attribute")
  func staticAndFunction() {
    assertExpansion(
      """
      final class C {
        @Inject static var shared: Service
      }
      """,
      expandedSource: """
        final class C {
          static var shared: Service
        }
        """,
      diagnostics: [
        DiagnosticSpec(
          id: .init(domain: "ForgeInjectMacros", id: "injectStatic"),
          message: "'@Inject' applies to instance properties, not static ones",
          line: 2,
          column: 3,
          fixIts: [FixItSpec(message: "Remove '@Inject'")]
        )
      ]
    )
    assertExpansion(
      """
      final class C {
        @Inject func make() {}
      }
      """,
      expandedSource: """
        final class C {
          func make() {}
        }
        """,
      diagnostics: [
        DiagnosticSpec(
          id: .init(domain: "ForgeInjectMacros", id: "injectNotAVariable"),
          message: "'@Inject' applies to a stored 'var' property",
          line: 2,
          column: 3,
          fixIts: [FixItSpec(message: "Remove '@Inject'")]
        )
      ]
    )
  }
}

@Suite("#inject() expansion")
struct InjectExpressionMacroTests {
  @Test("resolves the expected type, naming the enclosing type")
  func expression() {
    assertExpansion(
      """
      struct S {
        let service: NetworkServiceProtocol = #inject()
        lazy var repository: Repository = #inject()
      }
      """,
      expandedSource: """
        struct S {
          let service: NetworkServiceProtocol = ForgeInject.ForgeInjection.resolve("#inject() in S", fileID: "TestModule/test.swift", line: 2)
          lazy var repository: Repository = ForgeInject.ForgeInjection.resolve("#inject() in S", fileID: "TestModule/test.swift", line: 3)
        }
        """
    )
  }

  @Test("arguments are an error with a fix-it removing them")
  func arguments() {
    assertExpansion(
      """
      let service: Service = #inject(Service.self)
      """,
      expandedSource: """
        let service: Service = ForgeInject.ForgeInjection.resolve("#inject()", fileID: "TestModule/test.swift", line: 1)
        """,
      diagnostics: [
        DiagnosticSpec(
          id: .init(domain: "ForgeInjectMacros", id: "injectExpressionArguments"),
          message: "'#inject()' takes no arguments; the expected type selects the dependency",
          line: 1,
          column: 32,
          fixIts: [FixItSpec(message: "Remove the arguments")]
        )
      ],
      applyFixIts: ["Remove the arguments"],
      fixedSource: """
        let service: Service = #inject()
        """
    )
  }

  @Test("inside @Observable without @ObservationIgnored: an error with a fix-it adding it (issue 11)")
  func observableNeedsIgnored() {
    assertExpansion(
      """
      @Observable
      final class Screen {
        @Inject var analytics: AnalyticsServiceProtocol
      }
      """,
      expandedSource: """
        @Observable
        final class Screen {
          var analytics: AnalyticsServiceProtocol
        }
        """,
      diagnostics: [
        DiagnosticSpec(
          id: .init(domain: "ForgeInjectMacros", id: "injectObservableNeedsIgnored"),
          message: """
            '@Inject' inside an '@Observable' type needs '@ObservationIgnored' after it: \
            '@Observable' would otherwise add accessors of its own to the property
            """,
          line: 3,
          column: 3,
          fixIts: [FixItSpec(message: "Add '@ObservationIgnored' after '@Inject'")]
        )
      ],
      applyFixIts: ["Add '@ObservationIgnored' after '@Inject'"],
      fixedSource: """
        @Observable
        final class Screen {
          @Inject @ObservationIgnored var analytics: AnalyticsServiceProtocol
        }
        """
    )
  }

  @Test("after @ObservationIgnored: an error with a fix-it putting @Inject first")
  func afterObservationIgnored() {
    assertExpansion(
      """
      @Observable
      final class Screen {
        @ObservationIgnored @Inject var analytics: AnalyticsServiceProtocol
      }
      """,
      expandedSource: """
        @Observable
        final class Screen {
          @ObservationIgnored var analytics: AnalyticsServiceProtocol
        }
        """,
      diagnostics: [
        DiagnosticSpec(
          id: .init(domain: "ForgeInjectMacros", id: "injectAfterObservationIgnored"),
          message: """
            write '@Inject' before '@ObservationIgnored': Swift rejects the getter of an accessor \
            macro written after '@ObservationIgnored'
            """,
          line: 3,
          column: 23,
          fixIts: [FixItSpec(message: "Write '@Inject' before '@ObservationIgnored'")]
        )
      ],
      applyFixIts: ["Write '@Inject' before '@ObservationIgnored'"],
      fixedSource: """
        @Observable
        final class Screen {
          @Inject @ObservationIgnored var analytics: AnalyticsServiceProtocol
        }
        """
    )
  }

  @Test("@Inject @ObservationIgnored expands as usual")
  func beforeObservationIgnored() {
    assertExpansion(
      """
      @Observable
      final class Screen {
        @Inject @ObservationIgnored var analytics: AnalyticsServiceProtocol
      }
      """,
      expandedSource: """
        @Observable
        final class Screen {
          @ObservationIgnored var analytics: AnalyticsServiceProtocol {
            get {
              _analytics.value
            }
          }

          private let _analytics = ForgeInject.InjectedDependency<AnalyticsServiceProtocol>("Screen.analytics", lazy: true, fileID: "TestModule/test.swift", line: 3)
        }
        """
    )
  }
}

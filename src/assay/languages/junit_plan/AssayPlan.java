// assay's gate-3 plan for one JUnit 5 test class in one JVM (languages/java_plan.py writes the plan).
//
// The plan file: a line "classpath<TAB>entries" (the project's class path, without JUnit), lines
// "config<TAB>key=value", then one line per run:
//   "step<TAB>reportsDir<TAB>seed or -<TAB>1 if the plan ends after a failure, else 0<TAB>selector..."
// where a selector is "com.acme.PriceTest" (the class) or "com.acme.PriceTest#total(int)" (one test
// method, parameter types by simple name, as JUnit's XML names it; all of its invocations).
//
// Each run loads the project's classes in a class loader of its own, so every run, and each test
// alone, starts from fresh static state of the project's classes, as a new JVM would; what the JDK
// itself holds (system properties, the default locale and time zone, threads left running) is shared.
// Each run writes JUnit's legacy XML into its reports directory, then a file "done" there, and a line
// "assay-step N done".
import java.io.PrintWriter;
import java.lang.reflect.Method;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.platform.engine.DiscoverySelector;
import org.junit.platform.engine.TestExecutionResult;
import org.junit.platform.engine.discovery.DiscoverySelectors;
import org.junit.platform.launcher.Launcher;
import org.junit.platform.launcher.LauncherDiscoveryRequest;
import org.junit.platform.launcher.TestExecutionListener;
import org.junit.platform.launcher.TestIdentifier;
import org.junit.platform.launcher.core.LauncherDiscoveryRequestBuilder;
import org.junit.platform.launcher.core.LauncherFactory;
import org.junit.platform.reporting.legacy.xml.LegacyXmlReportGeneratingListener;

public final class AssayPlan {
    private AssayPlan() {}

    public static void main(String[] args) throws Exception {
        List<String> lines = Files.readAllLines(Paths.get(args[0]), StandardCharsets.UTF_8);
        List<URL> classpath = new ArrayList<>();
        Map<String, String> config = new LinkedHashMap<>();
        int step = 0;
        for (String line : lines) {
            String[] f = line.split("\t", -1);
            if (f[0].equals("classpath")) {
                for (String entry : f[1].split(java.io.File.pathSeparator)) {
                    if (!entry.isEmpty()) {
                        classpath.add(Paths.get(entry).toUri().toURL());
                    }
                }
            } else if (f[0].equals("config")) {
                int eq = f[1].indexOf('=');
                config.put(f[1].substring(0, eq), f[1].substring(eq + 1));
            } else if (f[0].equals("step")) {
                boolean failed = run(classpath, config, f);
                System.out.println("assay-step " + step + " done");
                System.out.flush();
                step++;
                if (failed && f[3].equals("1")) {
                    break;
                }
            }
        }
        System.exit(0); // threads a test left running do not hold the plan
    }

    /** One run in a class loader of its own; whether a test in it did not pass. */
    private static boolean run(List<URL> classpath, Map<String, String> config, String[] f)
            throws Exception {
        ClassLoader parent = AssayPlan.class.getClassLoader();
        try (URLClassLoader loader = new URLClassLoader(classpath.toArray(new URL[0]), parent)) {
            Thread.currentThread().setContextClassLoader(loader);
            LauncherDiscoveryRequestBuilder request = LauncherDiscoveryRequestBuilder.request();
            List<DiscoverySelector> selectors = new ArrayList<>();
            for (int i = 4; i < f.length; i++) {
                selectors.add(selector(loader, f[i]));
            }
            request.selectors(selectors).configurationParameters(config);
            if (!f[2].equals("-")) {
                request.configurationParameter(
                        "junit.jupiter.testmethod.order.default",
                        "org.junit.jupiter.api.MethodOrderer$Random");
                request.configurationParameter(
                        "junit.jupiter.testclass.order.default",
                        "org.junit.jupiter.api.ClassOrderer$Random");
                request.configurationParameter("junit.jupiter.execution.order.random.seed", f[2]);
            }
            LauncherDiscoveryRequest built = request.build();
            Path reports = Paths.get(f[1]);
            Files.createDirectories(reports);
            AtomicBoolean failed = new AtomicBoolean(false);
            TestExecutionListener watch =
                    new TestExecutionListener() {
                        @Override
                        public void executionFinished(TestIdentifier id, TestExecutionResult r) {
                            if (r.getStatus() == TestExecutionResult.Status.FAILED) {
                                failed.set(true);
                            }
                        }
                    };
            PrintWriter err = new PrintWriter(System.err, true);
            Launcher launcher = LauncherFactory.create();
            launcher.execute(built, new LegacyXmlReportGeneratingListener(reports, err), watch);
            // the XML is written per engine as each ends: a run is whole only with this mark
            Files.write(reports.resolve("done"), new byte[0]);
            return failed.get();
        } finally {
            Thread.currentThread().setContextClassLoader(parent);
        }
    }

    /** "pkg.Class" or "pkg.Class#method(Simple, Types)" as a selector on the run's own classes. */
    private static DiscoverySelector selector(ClassLoader loader, String text) throws Exception {
        int hash = text.indexOf('#');
        if (hash < 0) {
            return DiscoverySelectors.selectClass(Class.forName(text, false, loader));
        }
        Class<?> type = Class.forName(text.substring(0, hash), false, loader);
        String rest = text.substring(hash + 1);
        int paren = rest.indexOf('(');
        String name = paren < 0 ? rest : rest.substring(0, paren);
        String params = paren < 0 ? null : rest.substring(paren + 1, rest.length() - 1);
        Method found = null;
        for (Class<?> c = type; c != null && found == null; c = c.getSuperclass()) {
            for (Method m : c.getDeclaredMethods()) {
                if (m.getName().equals(name) && (params == null || params.equals(simple(m)))) {
                    found = m;
                    break;
                }
            }
        }
        if (found == null) {
            return DiscoverySelectors.selectMethod(type, name);
        }
        return DiscoverySelectors.selectMethod(type, found);
    }

    private static String simple(Method m) {
        List<String> names = new ArrayList<>();
        for (Class<?> p : m.getParameterTypes()) {
            names.add(p.getSimpleName());
        }
        return String.join(", ", names);
    }
}

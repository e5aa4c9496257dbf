package com.wualabs.qtsurfer.engine.checks;

/** Runs every engine self-check; exits 1 when any assertion failed. */
public final class AllChecks {

    private AllChecks() {
    }

    public static void main(String[] args) throws Exception {
        long start = System.nanoTime();
        IndicatorChecks.run();
        WindowChecks.run();
        GroupChecks.run();
        ApiChecks.run();
        ExampleChecks.run();
        CacheChecks.run();
        for (String f : Check.failures()) {
            System.out.println("FAIL " + f);
        }
        System.out.printf("engine checks: %d passed, %d failed (%.1f s)%n", Check.passed(), Check.failures().size(),
                (System.nanoTime() - start) / 1e9);
        System.exit(Check.failures().isEmpty() ? 0 : 1);
    }
}

package com.wualabs.backtestd.host;

import javax.lang.model.element.ExecutableElement;
import javax.lang.model.element.Modifier;
import javax.lang.model.element.TypeElement;
import javax.lang.model.type.DeclaredType;
import javax.lang.model.type.TypeKind;
import javax.lang.model.type.TypeMirror;
import javax.lang.model.util.ElementFilter;

/**
 * What makes a class a runnable strategy: it extends one of the engine's strategy bases, is
 * concrete, and can be instantiated through a public no-argument constructor.
 * Checking this at compile time turns a later, obscure run failure into a diagnostic.
 */
final class StrategyShape {
    static final String BASE_PACKAGE = "com.wualabs.qtsurfer.engine.";

    private StrategyShape() {}

    /** A user-readable problem with {@code type} as a strategy, or null when it is fine. */
    static String problem(TypeElement type) {
        String name = type.getSimpleName().toString();
        if (!extendsStrategyBase(type)) {
            return "class " + name + " does not extend a strategy base class "
                    + "(AbstractTickerStrategy, AbstractKlineStrategy, AbstractFundingRateStrategy "
                    + "or AbstractMultiSourceStrategy)";
        }
        if (type.getModifiers().contains(Modifier.ABSTRACT)) {
            return "class " + name + " is abstract; a strategy must be a concrete class";
        }
        for (ExecutableElement c : ElementFilter.constructorsIn(type.getEnclosedElements())) {
            if (c.getParameters().isEmpty() && c.getModifiers().contains(Modifier.PUBLIC)) {
                return null;
            }
        }
        return "class " + name + " needs a public constructor without parameters";
    }

    static boolean extendsStrategyBase(TypeElement type) {
        TypeMirror sup = type.getSuperclass();
        int depth = 0;
        while (sup.getKind() == TypeKind.DECLARED && depth++ < 32) {
            TypeElement s = (TypeElement) ((DeclaredType) sup).asElement();
            if (s.getQualifiedName().toString().startsWith(BASE_PACKAGE)
                    && s.getSimpleName().toString().endsWith("Strategy")) {
                return true;
            }
            sup = s.getSuperclass();
        }
        return false;
    }
}

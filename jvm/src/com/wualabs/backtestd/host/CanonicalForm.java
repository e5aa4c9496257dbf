package com.wualabs.backtestd.host;

import com.sun.source.tree.BreakTree;
import com.sun.source.tree.CaseTree;
import com.sun.source.tree.ClassTree;
import com.sun.source.tree.CompilationUnitTree;
import com.sun.source.tree.ContinueTree;
import com.sun.source.tree.IdentifierTree;
import com.sun.source.tree.ImportTree;
import com.sun.source.tree.LabeledStatementTree;
import com.sun.source.tree.LambdaExpressionTree;
import com.sun.source.tree.LiteralTree;
import com.sun.source.tree.MemberReferenceTree;
import com.sun.source.tree.MemberSelectTree;
import com.sun.source.tree.MethodTree;
import com.sun.source.tree.ModifiersTree;
import com.sun.source.tree.PrimitiveTypeTree;
import com.sun.source.tree.Tree;
import com.sun.source.tree.TypeParameterTree;
import com.sun.source.tree.VariableTree;
import com.sun.source.util.TreeScanner;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

/**
 * Prints a parsed compilation unit as a canonical S-expression for the Java strategy id.
 *
 * <p>The id must follow meaning, not layout. A syntax tree has no comments or
 * whitespace to begin with; on top of that, imports are sorted, and within each type body the
 * methods, constructors and nested types are sorted by their own canonical text (moving them does
 * not change behaviour), while fields and initializer blocks keep their relative order (it decides
 * initialization order). Identifiers, literals, modifiers, operators and statement order are all
 * printed. Must be given a tree straight from the parser: later compiler phases add synthetic
 * members (default constructors) and rewrite code.
 */
final class CanonicalForm {
    /** Bumped whenever the printed form changes, because ids hashed from it change too. */
    static final String VERSION = "canonical-java/1";

    private CanonicalForm() {}

    /** The canonical form of one compilation unit. */
    static String of(CompilationUnitTree unit) {
        StringBuilder out = new StringBuilder(VERSION).append('\n');
        Printer printer = new Printer();
        if (unit.getPackageName() != null) {
            out.append("(package ").append(printer.render(unit.getPackageName())).append(")\n");
        }
        List<String> imports = new ArrayList<>();
        for (ImportTree imp : unit.getImports()) {
            imports.add(printer.render(imp));
        }
        Collections.sort(imports);
        for (String imp : imports) {
            out.append(imp).append('\n');
        }
        List<String> types = new ArrayList<>();
        for (Tree t : unit.getTypeDecls()) {
            String rendered = printer.render(t);
            if (!rendered.equals("(EMPTY_STATEMENT)")) { // stray ';' between types
                types.add(rendered);
            }
        }
        Collections.sort(types);
        for (String t : types) {
            out.append(t).append('\n');
        }
        return out.toString();
    }

    /** The S-expression printer: "(KIND attributes children...)". */
    private static final class Printer extends TreeScanner<Void, StringBuilder> {
        String render(Tree tree) {
            StringBuilder sb = new StringBuilder();
            scan(tree, sb);
            return sb.toString();
        }

        @Override
        public Void scan(Tree tree, StringBuilder out) {
            if (tree == null) {
                out.append(" _");
                return null;
            }
            out.append('(').append(tree.getKind().name());
            attributes(tree, out);
            super.scan(tree, out);
            out.append(')');
            return null;
        }

        @Override
        public Void scan(Iterable<? extends Tree> trees, StringBuilder out) {
            out.append(" [");
            if (trees != null) {
                for (Tree t : trees) {
                    scan(t, out);
                }
            }
            out.append(']');
            return null;
        }

        @Override
        public Void visitClass(ClassTree node, StringBuilder out) {
            scan(node.getModifiers(), out);
            scan(node.getTypeParameters(), out);
            scan(node.getExtendsClause(), out);
            scan(node.getImplementsClause(), out);
            scan(node.getPermitsClause(), out);
            List<String> ordered = new ArrayList<>();
            List<String> movable = new ArrayList<>();
            for (Tree member : node.getMembers()) {
                boolean isMovable = member instanceof MethodTree || member instanceof ClassTree;
                (isMovable ? movable : ordered).add(render(member));
            }
            Collections.sort(movable);
            out.append(" [");
            ordered.forEach(out::append);
            out.append("] [");
            movable.forEach(out::append);
            out.append(']');
            return null;
        }

        /** The non-tree facts of a node: names, literal values, modifiers, labels. */
        private static void attributes(Tree tree, StringBuilder out) {
            String attr = null;
            if (tree instanceof ClassTree t) {
                attr = t.getSimpleName().toString();
            } else if (tree instanceof MethodTree t) {
                attr = t.getName().toString();
            } else if (tree instanceof VariableTree t) {
                attr = t.getName().toString();
            } else if (tree instanceof IdentifierTree t) {
                attr = t.getName().toString();
            } else if (tree instanceof MemberSelectTree t) {
                attr = t.getIdentifier().toString();
            } else if (tree instanceof MemberReferenceTree t) {
                attr = t.getMode() + " " + t.getName();
            } else if (tree instanceof TypeParameterTree t) {
                attr = t.getName().toString();
            } else if (tree instanceof LabeledStatementTree t) {
                attr = t.getLabel().toString();
            } else if (tree instanceof BreakTree t && t.getLabel() != null) {
                attr = t.getLabel().toString();
            } else if (tree instanceof ContinueTree t && t.getLabel() != null) {
                attr = t.getLabel().toString();
            } else if (tree instanceof LiteralTree t) {
                attr = literal(t.getValue());
            } else if (tree instanceof PrimitiveTypeTree t) {
                attr = t.getPrimitiveTypeKind().name();
            } else if (tree instanceof ModifiersTree t) {
                attr = t.getFlags().toString();
            } else if (tree instanceof ImportTree t) {
                attr = t.isStatic() ? "static" : "";
            } else if (tree instanceof CaseTree t) {
                attr = t.getCaseKind().name();
            } else if (tree instanceof LambdaExpressionTree t) {
                attr = t.getBodyKind().name();
            }
            if (attr != null) {
                out.append(' ');
                quote(attr, out);
            }
        }

        private static String literal(Object value) {
            if (value == null) {
                return "null";
            }
            String type = value.getClass().getSimpleName();
            return type + ":" + value;
        }

        private static void quote(String s, StringBuilder out) {
            out.append('"');
            for (int i = 0; i < s.length(); i++) {
                char c = s.charAt(i);
                if (c == '"' || c == '\\') {
                    out.append('\\').append(c);
                } else if (c < 0x20 || c > 0x7e) {
                    out.append(String.format("\\u%04x", (int) c));
                } else {
                    out.append(c);
                }
            }
            out.append('"');
        }
    }
}

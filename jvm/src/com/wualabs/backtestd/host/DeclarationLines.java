package com.wualabs.backtestd.host;

import com.sun.source.tree.ClassTree;
import com.sun.source.tree.CompilationUnitTree;
import com.sun.source.tree.MethodTree;
import com.sun.source.tree.Tree;
import com.sun.source.tree.VariableTree;
import com.sun.source.util.JavacTask;
import com.sun.source.util.TreePathScanner;
import com.sun.source.util.Trees;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.HashMap;
import java.util.Map;
import javax.lang.model.element.Element;
import javax.lang.model.element.TypeElement;

/**
 * Source lines of classes, fields and methods, keyed by internal class name, so that a sandbox
 * violation found in a declaration (a field of a forbidden type, a super class) still points at
 * the user's line. Collected from the attributed tree, before code generation rewrites it.
 */
final class DeclarationLines implements BytecodeVerifier.LineHints {
    private final Map<String, Integer> lines = new HashMap<>();

    DeclarationLines(JavacTask task, Trees trees, CompilationUnitTree unit) {
        Deque<String> owners = new ArrayDeque<>();
        new TreePathScanner<Void, Void>() {
            @Override
            public Void visitClass(ClassTree node, Void unused) {
                Element e = trees.getElement(getCurrentPath());
                if (!(e instanceof TypeElement type)) {
                    return super.visitClass(node, unused);
                }
                String internal = task.getElements().getBinaryName(type).toString()
                        .replace('.', '/');
                record(internal, null, node);
                owners.push(internal);
                try {
                    return super.visitClass(node, unused);
                } finally {
                    owners.pop();
                }
            }

            @Override
            public Void visitVariable(VariableTree node, Void unused) {
                Tree parent = getCurrentPath().getParentPath().getLeaf();
                if (parent instanceof ClassTree && !owners.isEmpty()) {
                    record(owners.peek(), node.getName().toString(), node);
                }
                return super.visitVariable(node, unused);
            }

            @Override
            public Void visitMethod(MethodTree node, Void unused) {
                if (!owners.isEmpty()) {
                    record(owners.peek(), node.getName().toString(), node);
                }
                return super.visitMethod(node, unused);
            }

            private void record(String owner, String member, Tree node) {
                long pos = trees.getSourcePositions().getStartPosition(unit, node);
                if (pos >= 0) {
                    int line = (int) unit.getLineMap().getLineNumber(pos);
                    lines.putIfAbsent(key(owner, member), line);
                }
            }
        }.scan(unit, null);
    }

    private static String key(String owner, String member) {
        return member == null ? owner : owner + "#" + member;
    }

    @Override
    public int lineOf(String className, String memberName) {
        Integer line = lines.get(key(className, memberName));
        if (line == null && memberName != null) {
            line = lines.get(className);
        }
        return line == null ? -1 : line;
    }
}

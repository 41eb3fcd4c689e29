// A fixture for lang07's stage 2, not a port: the package's entry point
// compiled by tsc, with the API declared in TypeScript and the declaration
// file generated from it, delegating every call to State A's bundle. Its
// one defect is in the declarations: evaluate's input is optional, so a
// consumer that calls evaluate() with no input compiles, where jsonata
// 2.2.2's declarations reject it.
import impl = require('../jsonata');

function jsonata(str: string, options?: jsonata.JsonataOptions): jsonata.Expression {
  return impl(str, options) as unknown as jsonata.Expression;
}

namespace jsonata {
  export interface JsonataOptions {
    recover?: boolean;
    RegexEngine?: RegExpConstructor;
    timeout?: number;
    stack?: number;
    sequence?: number;
  }

  export interface ExprNode {
    type:
      | 'binary' | 'unary' | 'function' | 'partial' | 'lambda' | 'condition' | 'transform' | 'block' | 'name' | 'parent'
      | 'string' | 'number' | 'value' | 'wildcard' | 'descendant' | 'variable' | 'regexp' | 'operator' | 'error';
    value?: any;
    position?: number;
    arguments?: ExprNode[];
    name?: string;
    procedure?: ExprNode;
    steps?: ExprNode[];
    expressions?: ExprNode[];
    stages?: ExprNode[];
    lhs?: ExprNode | ExprNode[] | [ExprNode, ExprNode][];
    rhs?: ExprNode;
  }

  export interface JsonataError extends Error {
    code: string;
    position: number;
    token: string;
  }

  export interface Environment {
    bind(name: string | symbol, value: any): void;
    lookup(name: string | symbol): any;
    readonly timestamp: Date;
    readonly async: boolean;
  }

  export interface Focus {
    readonly environment: Environment;
    readonly input: any;
  }

  export interface Expression {
    evaluate(input?: any, bindings?: Record<string, any>): Promise<any>;
    evaluate(input: any, bindings: Record<string, any> | undefined, callback: (err: JsonataError, resp: any) => void): void;
    assign(name: string, value: any): void;
    registerFunction(name: string, implementation: (this: Focus, ...args: any[]) => any, signature?: string): void;
    ast(): ExprNode;
  }
}

export = jsonata;

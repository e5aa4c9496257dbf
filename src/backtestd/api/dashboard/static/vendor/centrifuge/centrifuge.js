/******************************************************************************
Copyright (c) Microsoft Corporation.

Permission to use, copy, modify, and/or distribute this software for any
purpose with or without fee is hereby granted.

THE SOFTWARE IS PROVIDED "AS IS" AND THE AUTHOR DISCLAIMS ALL WARRANTIES WITH
REGARD TO THIS SOFTWARE INCLUDING ALL IMPLIED WARRANTIES OF MERCHANTABILITY
AND FITNESS. IN NO EVENT SHALL THE AUTHOR BE LIABLE FOR ANY SPECIAL, DIRECT,
INDIRECT, OR CONSEQUENTIAL DAMAGES OR ANY DAMAGES WHATSOEVER RESULTING FROM
LOSS OF USE, DATA OR PROFITS, WHETHER IN AN ACTION OF CONTRACT, NEGLIGENCE OR
OTHER TORTIOUS ACTION, ARISING OUT OF OR IN CONNECTION WITH THE USE OR
PERFORMANCE OF THIS SOFTWARE.
***************************************************************************** */
/* global Reflect, Promise, SuppressedError, Symbol, Iterator */


function __awaiter(thisArg, _arguments, P, generator) {
    function adopt(value) { return value instanceof P ? value : new P(function (resolve) { resolve(value); }); }
    return new (P || (P = Promise))(function (resolve, reject) {
        function fulfilled(value) { try { step(generator.next(value)); } catch (e) { reject(e); } }
        function rejected(value) { try { step(generator["throw"](value)); } catch (e) { reject(e); } }
        function step(result) { result.done ? resolve(result.value) : adopt(result.value).then(fulfilled, rejected); }
        step((generator = generator.apply(thisArg, _arguments || [])).next());
    });
}

typeof SuppressedError === "function" ? SuppressedError : function (error, suppressed, message) {
    var e = new Error(message);
    return e.name = "SuppressedError", e.error = error, e.suppressed = suppressed, e;
};

function getDefaultExportFromCjs (x) {
	return x && x.__esModule && Object.prototype.hasOwnProperty.call(x, 'default') ? x['default'] : x;
}

var events = {exports: {}};

var hasRequiredEvents;

function requireEvents () {
	if (hasRequiredEvents) return events.exports;
	hasRequiredEvents = 1;

	var R = typeof Reflect === 'object' ? Reflect : null;
	var ReflectApply = R && typeof R.apply === 'function'
	  ? R.apply
	  : function ReflectApply(target, receiver, args) {
	    return Function.prototype.apply.call(target, receiver, args);
	  };

	var ReflectOwnKeys;
	if (R && typeof R.ownKeys === 'function') {
	  ReflectOwnKeys = R.ownKeys;
	} else if (Object.getOwnPropertySymbols) {
	  ReflectOwnKeys = function ReflectOwnKeys(target) {
	    return Object.getOwnPropertyNames(target)
	      .concat(Object.getOwnPropertySymbols(target));
	  };
	} else {
	  ReflectOwnKeys = function ReflectOwnKeys(target) {
	    return Object.getOwnPropertyNames(target);
	  };
	}

	function ProcessEmitWarning(warning) {
	  if (console && console.warn) console.warn(warning);
	}

	var NumberIsNaN = Number.isNaN || function NumberIsNaN(value) {
	  return value !== value;
	};

	function EventEmitter() {
	  EventEmitter.init.call(this);
	}
	events.exports = EventEmitter;
	events.exports.once = once;

	// Backwards-compat with node 0.10.x
	EventEmitter.EventEmitter = EventEmitter;

	EventEmitter.prototype._events = undefined;
	EventEmitter.prototype._eventsCount = 0;
	EventEmitter.prototype._maxListeners = undefined;

	// By default EventEmitters will print a warning if more than 10 listeners are
	// added to it. This is a useful default which helps finding memory leaks.
	var defaultMaxListeners = 10;

	function checkListener(listener) {
	  if (typeof listener !== 'function') {
	    throw new TypeError('The "listener" argument must be of type Function. Received type ' + typeof listener);
	  }
	}

	Object.defineProperty(EventEmitter, 'defaultMaxListeners', {
	  enumerable: true,
	  get: function() {
	    return defaultMaxListeners;
	  },
	  set: function(arg) {
	    if (typeof arg !== 'number' || arg < 0 || NumberIsNaN(arg)) {
	      throw new RangeError('The value of "defaultMaxListeners" is out of range. It must be a non-negative number. Received ' + arg + '.');
	    }
	    defaultMaxListeners = arg;
	  }
	});

	EventEmitter.init = function() {

	  if (this._events === undefined ||
	      this._events === Object.getPrototypeOf(this)._events) {
	    this._events = Object.create(null);
	    this._eventsCount = 0;
	  }

	  this._maxListeners = this._maxListeners || undefined;
	};

	// Obviously not all Emitters should be limited to 10. This function allows
	// that to be increased. Set to zero for unlimited.
	EventEmitter.prototype.setMaxListeners = function setMaxListeners(n) {
	  if (typeof n !== 'number' || n < 0 || NumberIsNaN(n)) {
	    throw new RangeError('The value of "n" is out of range. It must be a non-negative number. Received ' + n + '.');
	  }
	  this._maxListeners = n;
	  return this;
	};

	function _getMaxListeners(that) {
	  if (that._maxListeners === undefined)
	    return EventEmitter.defaultMaxListeners;
	  return that._maxListeners;
	}

	EventEmitter.prototype.getMaxListeners = function getMaxListeners() {
	  return _getMaxListeners(this);
	};

	EventEmitter.prototype.emit = function emit(type) {
	  var args = [];
	  for (var i = 1; i < arguments.length; i++) args.push(arguments[i]);
	  var doError = (type === 'error');

	  var events = this._events;
	  if (events !== undefined)
	    doError = (doError && events.error === undefined);
	  else if (!doError)
	    return false;

	  // If there is no 'error' event listener then throw.
	  if (doError) {
	    var er;
	    if (args.length > 0)
	      er = args[0];
	    if (er instanceof Error) {
	      // Note: The comments on the `throw` lines are intentional, they show
	      // up in Node's output if this results in an unhandled exception.
	      throw er; // Unhandled 'error' event
	    }
	    // At least give some kind of context to the user
	    var err = new Error('Unhandled error.' + (er ? ' (' + er.message + ')' : ''));
	    err.context = er;
	    throw err; // Unhandled 'error' event
	  }

	  var handler = events[type];

	  if (handler === undefined)
	    return false;

	  if (typeof handler === 'function') {
	    ReflectApply(handler, this, args);
	  } else {
	    var len = handler.length;
	    var listeners = arrayClone(handler, len);
	    for (var i = 0; i < len; ++i)
	      ReflectApply(listeners[i], this, args);
	  }

	  return true;
	};

	function _addListener(target, type, listener, prepend) {
	  var m;
	  var events;
	  var existing;

	  checkListener(listener);

	  events = target._events;
	  if (events === undefined) {
	    events = target._events = Object.create(null);
	    target._eventsCount = 0;
	  } else {
	    // To avoid recursion in the case that type === "newListener"! Before
	    // adding it to the listeners, first emit "newListener".
	    if (events.newListener !== undefined) {
	      target.emit('newListener', type,
	                  listener.listener ? listener.listener : listener);

	      // Re-assign `events` because a newListener handler could have caused the
	      // this._events to be assigned to a new object
	      events = target._events;
	    }
	    existing = events[type];
	  }

	  if (existing === undefined) {
	    // Optimize the case of one listener. Don't need the extra array object.
	    existing = events[type] = listener;
	    ++target._eventsCount;
	  } else {
	    if (typeof existing === 'function') {
	      // Adding the second element, need to change to array.
	      existing = events[type] =
	        prepend ? [listener, existing] : [existing, listener];
	      // If we've already got an array, just append.
	    } else if (prepend) {
	      existing.unshift(listener);
	    } else {
	      existing.push(listener);
	    }

	    // Check for listener leak
	    m = _getMaxListeners(target);
	    if (m > 0 && existing.length > m && !existing.warned) {
	      existing.warned = true;
	      // No error code for this since it is a Warning
	      // eslint-disable-next-line no-restricted-syntax
	      var w = new Error('Possible EventEmitter memory leak detected. ' +
	                          existing.length + ' ' + String(type) + ' listeners ' +
	                          'added. Use emitter.setMaxListeners() to ' +
	                          'increase limit');
	      w.name = 'MaxListenersExceededWarning';
	      w.emitter = target;
	      w.type = type;
	      w.count = existing.length;
	      ProcessEmitWarning(w);
	    }
	  }

	  return target;
	}

	EventEmitter.prototype.addListener = function addListener(type, listener) {
	  return _addListener(this, type, listener, false);
	};

	EventEmitter.prototype.on = EventEmitter.prototype.addListener;

	EventEmitter.prototype.prependListener =
	    function prependListener(type, listener) {
	      return _addListener(this, type, listener, true);
	    };

	function onceWrapper() {
	  if (!this.fired) {
	    this.target.removeListener(this.type, this.wrapFn);
	    this.fired = true;
	    if (arguments.length === 0)
	      return this.listener.call(this.target);
	    return this.listener.apply(this.target, arguments);
	  }
	}

	function _onceWrap(target, type, listener) {
	  var state = { fired: false, wrapFn: undefined, target: target, type: type, listener: listener };
	  var wrapped = onceWrapper.bind(state);
	  wrapped.listener = listener;
	  state.wrapFn = wrapped;
	  return wrapped;
	}

	EventEmitter.prototype.once = function once(type, listener) {
	  checkListener(listener);
	  this.on(type, _onceWrap(this, type, listener));
	  return this;
	};

	EventEmitter.prototype.prependOnceListener =
	    function prependOnceListener(type, listener) {
	      checkListener(listener);
	      this.prependListener(type, _onceWrap(this, type, listener));
	      return this;
	    };

	// Emits a 'removeListener' event if and only if the listener was removed.
	EventEmitter.prototype.removeListener =
	    function removeListener(type, listener) {
	      var list, events, position, i, originalListener;

	      checkListener(listener);

	      events = this._events;
	      if (events === undefined)
	        return this;

	      list = events[type];
	      if (list === undefined)
	        return this;

	      if (list === listener || list.listener === listener) {
	        if (--this._eventsCount === 0)
	          this._events = Object.create(null);
	        else {
	          delete events[type];
	          if (events.removeListener)
	            this.emit('removeListener', type, list.listener || listener);
	        }
	      } else if (typeof list !== 'function') {
	        position = -1;

	        for (i = list.length - 1; i >= 0; i--) {
	          if (list[i] === listener || list[i].listener === listener) {
	            originalListener = list[i].listener;
	            position = i;
	            break;
	          }
	        }

	        if (position < 0)
	          return this;

	        if (position === 0)
	          list.shift();
	        else {
	          spliceOne(list, position);
	        }

	        if (list.length === 1)
	          events[type] = list[0];

	        if (events.removeListener !== undefined)
	          this.emit('removeListener', type, originalListener || listener);
	      }

	      return this;
	    };

	EventEmitter.prototype.off = EventEmitter.prototype.removeListener;

	EventEmitter.prototype.removeAllListeners =
	    function removeAllListeners(type) {
	      var listeners, events, i;

	      events = this._events;
	      if (events === undefined)
	        return this;

	      // not listening for removeListener, no need to emit
	      if (events.removeListener === undefined) {
	        if (arguments.length === 0) {
	          this._events = Object.create(null);
	          this._eventsCount = 0;
	        } else if (events[type] !== undefined) {
	          if (--this._eventsCount === 0)
	            this._events = Object.create(null);
	          else
	            delete events[type];
	        }
	        return this;
	      }

	      // emit removeListener for all listeners on all events
	      if (arguments.length === 0) {
	        var keys = Object.keys(events);
	        var key;
	        for (i = 0; i < keys.length; ++i) {
	          key = keys[i];
	          if (key === 'removeListener') continue;
	          this.removeAllListeners(key);
	        }
	        this.removeAllListeners('removeListener');
	        this._events = Object.create(null);
	        this._eventsCount = 0;
	        return this;
	      }

	      listeners = events[type];

	      if (typeof listeners === 'function') {
	        this.removeListener(type, listeners);
	      } else if (listeners !== undefined) {
	        // LIFO order
	        for (i = listeners.length - 1; i >= 0; i--) {
	          this.removeListener(type, listeners[i]);
	        }
	      }

	      return this;
	    };

	function _listeners(target, type, unwrap) {
	  var events = target._events;

	  if (events === undefined)
	    return [];

	  var evlistener = events[type];
	  if (evlistener === undefined)
	    return [];

	  if (typeof evlistener === 'function')
	    return unwrap ? [evlistener.listener || evlistener] : [evlistener];

	  return unwrap ?
	    unwrapListeners(evlistener) : arrayClone(evlistener, evlistener.length);
	}

	EventEmitter.prototype.listeners = function listeners(type) {
	  return _listeners(this, type, true);
	};

	EventEmitter.prototype.rawListeners = function rawListeners(type) {
	  return _listeners(this, type, false);
	};

	EventEmitter.listenerCount = function(emitter, type) {
	  if (typeof emitter.listenerCount === 'function') {
	    return emitter.listenerCount(type);
	  } else {
	    return listenerCount.call(emitter, type);
	  }
	};

	EventEmitter.prototype.listenerCount = listenerCount;
	function listenerCount(type) {
	  var events = this._events;

	  if (events !== undefined) {
	    var evlistener = events[type];

	    if (typeof evlistener === 'function') {
	      return 1;
	    } else if (evlistener !== undefined) {
	      return evlistener.length;
	    }
	  }

	  return 0;
	}

	EventEmitter.prototype.eventNames = function eventNames() {
	  return this._eventsCount > 0 ? ReflectOwnKeys(this._events) : [];
	};

	function arrayClone(arr, n) {
	  var copy = new Array(n);
	  for (var i = 0; i < n; ++i)
	    copy[i] = arr[i];
	  return copy;
	}

	function spliceOne(list, index) {
	  for (; index + 1 < list.length; index++)
	    list[index] = list[index + 1];
	  list.pop();
	}

	function unwrapListeners(arr) {
	  var ret = new Array(arr.length);
	  for (var i = 0; i < ret.length; ++i) {
	    ret[i] = arr[i].listener || arr[i];
	  }
	  return ret;
	}

	function once(emitter, name) {
	  return new Promise(function (resolve, reject) {
	    function errorListener(err) {
	      emitter.removeListener(name, resolver);
	      reject(err);
	    }

	    function resolver() {
	      if (typeof emitter.removeListener === 'function') {
	        emitter.removeListener('error', errorListener);
	      }
	      resolve([].slice.call(arguments));
	    }
	    eventTargetAgnosticAddListener(emitter, name, resolver, { once: true });
	    if (name !== 'error') {
	      addErrorHandlerIfEventEmitter(emitter, errorListener, { once: true });
	    }
	  });
	}

	function addErrorHandlerIfEventEmitter(emitter, handler, flags) {
	  if (typeof emitter.on === 'function') {
	    eventTargetAgnosticAddListener(emitter, 'error', handler, flags);
	  }
	}

	function eventTargetAgnosticAddListener(emitter, name, listener, flags) {
	  if (typeof emitter.on === 'function') {
	    if (flags.once) {
	      emitter.once(name, listener);
	    } else {
	      emitter.on(name, listener);
	    }
	  } else if (typeof emitter.addEventListener === 'function') {
	    // EventTarget does not have `error` event semantics like Node
	    // EventEmitters, we do not listen for `error` events here.
	    emitter.addEventListener(name, function wrapListener(arg) {
	      // IE does not have builtin `{ once: true }` support so we
	      // have to do it manually.
	      if (flags.once) {
	        emitter.removeEventListener(name, wrapListener);
	      }
	      listener(arg);
	    });
	  } else {
	    throw new TypeError('The "emitter" argument must be of type EventEmitter. Received type ' + typeof emitter);
	  }
	}
	return events.exports;
}

var eventsExports = requireEvents();
var EventEmitter = /*@__PURE__*/getDefaultExportFromCjs(eventsExports);

var errorCodes;
(function (errorCodes) {
    errorCodes[errorCodes["timeout"] = 1] = "timeout";
    errorCodes[errorCodes["transportClosed"] = 2] = "transportClosed";
    errorCodes[errorCodes["clientDisconnected"] = 3] = "clientDisconnected";
    errorCodes[errorCodes["clientClosed"] = 4] = "clientClosed";
    errorCodes[errorCodes["clientConnectToken"] = 5] = "clientConnectToken";
    errorCodes[errorCodes["clientRefreshToken"] = 6] = "clientRefreshToken";
    errorCodes[errorCodes["subscriptionUnsubscribed"] = 7] = "subscriptionUnsubscribed";
    errorCodes[errorCodes["subscriptionSubscribeToken"] = 8] = "subscriptionSubscribeToken";
    errorCodes[errorCodes["subscriptionRefreshToken"] = 9] = "subscriptionRefreshToken";
    errorCodes[errorCodes["transportWriteError"] = 10] = "transportWriteError";
    errorCodes[errorCodes["connectionClosed"] = 11] = "connectionClosed";
    errorCodes[errorCodes["badConfiguration"] = 12] = "badConfiguration";
    errorCodes[errorCodes["subscriptionGetState"] = 13] = "subscriptionGetState";
    errorCodes[errorCodes["sharedPollGetSignature"] = 14] = "sharedPollGetSignature";
})(errorCodes || (errorCodes = {}));
var connectingCodes;
(function (connectingCodes) {
    connectingCodes[connectingCodes["connectCalled"] = 0] = "connectCalled";
    connectingCodes[connectingCodes["transportClosed"] = 1] = "transportClosed";
    connectingCodes[connectingCodes["noPing"] = 2] = "noPing";
    connectingCodes[connectingCodes["subscribeTimeout"] = 3] = "subscribeTimeout";
    connectingCodes[connectingCodes["unsubscribeError"] = 4] = "unsubscribeError";
})(connectingCodes || (connectingCodes = {}));
var disconnectedCodes;
(function (disconnectedCodes) {
    disconnectedCodes[disconnectedCodes["disconnectCalled"] = 0] = "disconnectCalled";
    disconnectedCodes[disconnectedCodes["unauthorized"] = 1] = "unauthorized";
    disconnectedCodes[disconnectedCodes["badProtocol"] = 2] = "badProtocol";
    disconnectedCodes[disconnectedCodes["messageSizeLimit"] = 3] = "messageSizeLimit";
    // Server-sent: the connection's cached state and/or token are no longer valid.
    // The client clears the connection token (to force getToken), invalidates all
    // subscription state, and reconnects. Delivered as a Disconnect push or a raw
    // WebSocket close code.
    disconnectedCodes[disconnectedCodes["stateInvalidated"] = 3014] = "stateInvalidated";
})(disconnectedCodes || (disconnectedCodes = {}));
var subscribingCodes;
(function (subscribingCodes) {
    subscribingCodes[subscribingCodes["subscribeCalled"] = 0] = "subscribeCalled";
    subscribingCodes[subscribingCodes["transportClosed"] = 1] = "transportClosed";
})(subscribingCodes || (subscribingCodes = {}));
var unsubscribedCodes;
(function (unsubscribedCodes) {
    unsubscribedCodes[unsubscribedCodes["unsubscribeCalled"] = 0] = "unsubscribeCalled";
    unsubscribedCodes[unsubscribedCodes["unauthorized"] = 1] = "unauthorized";
    unsubscribedCodes[unsubscribedCodes["clientClosed"] = 2] = "clientClosed";
    // Server-sent (in an Unsubscribe push): this subscription's cached state
    // and/or token are no longer valid. The client clears the subscription state
    // and resubscribes (this is a temporary unsubscribe, code >= 2500).
    unsubscribedCodes[unsubscribedCodes["stateInvalidated"] = 2502] = "stateInvalidated";
})(unsubscribedCodes || (unsubscribedCodes = {}));
var subscriptionFlags;
(function (subscriptionFlags) {
    subscriptionFlags[subscriptionFlags["channelCompaction"] = 1] = "channelCompaction";
    subscriptionFlags[subscriptionFlags["rejectUnrecovered"] = 2] = "rejectUnrecovered";
})(subscriptionFlags || (subscriptionFlags = {}));

/** State of client. */
var State;
(function (State) {
    State["Disconnected"] = "disconnected";
    State["Connecting"] = "connecting";
    State["Connected"] = "connected";
})(State || (State = {}));
/** State of Subscription */
var SubscriptionState;
(function (SubscriptionState) {
    SubscriptionState["Unsubscribed"] = "unsubscribed";
    SubscriptionState["Subscribing"] = "subscribing";
    SubscriptionState["Subscribed"] = "subscribed";
})(SubscriptionState || (SubscriptionState = {}));

/** @internal */
function startsWith(value, prefix) {
    return value.lastIndexOf(prefix, 0) === 0;
}
/** @internal */
function isFunction(value) {
    if (value === undefined || value === null) {
        return false;
    }
    return typeof value === 'function';
}
/** @internal */
function log(level, args) {
    if (globalThis.console) {
        const logger = globalThis.console[level];
        if (isFunction(logger)) {
            logger.apply(globalThis.console, args);
        }
    }
}
function randomInt(min, max) {
    return Math.floor(Math.random() * (max - min + 1) + min);
}
/** @internal */
function backoff(step, min, max) {
    // Full jitter technique, see:
    // https://aws.amazon.com/blogs/architecture/exponential-backoff-and-jitter/
    if (step > 31) {
        step = 31;
    }
    const interval = randomInt(0, Math.min(max, min * Math.pow(2, step)));
    return Math.min(max, min + interval);
}
/** @internal */
function errorExists(data) {
    return 'error' in data && data.error !== null;
}
/** @internal */
function ttlMilliseconds(ttl) {
    // https://stackoverflow.com/questions/12633405/what-is-the-maximum-delay-for-setinterval
    return Math.min(ttl * 1000, 2147483647);
}
/** @internal */
function localStorageItem(key) {
    // Accessing localStorage is not always safe: it may be null (Safari in
    // private browsing mode), or even throw on property access (when access to
    // storage is denied by the browser settings).
    try {
        if (typeof localStorage === 'undefined' || localStorage === null || !isFunction(localStorage.getItem)) {
            return null;
        }
        return localStorage.getItem(key);
    }
    catch (e) {
        return null;
    }
}
/** @internal Reports whether a publication carries an offset. Protobuf decodes a
 * missing offset as 0 (a Long where long.js is available), which must not replace
 * a stored position. */
function hasOffset(offset) {
    return offset !== undefined && offset !== null && Number(offset) > 0;
}
/** @internal Converts an offset of a reply or a publication to a number.
 * Over the protobuf protocol a uint64 decodes to a Long object where long.js is
 * available (it comes with protobufjs), and such an object must reach neither the
 * app — the public types declare a number, and an app storing the position gets
 * `{low, high, unsigned}` back, which compares and adds as NaN — nor the position
 * the library keeps. A position an app stored with an earlier version, and passes
 * back through `since`, has the same shape without the methods, so it is converted
 * here too. Offsets above 2^53 lose exactness, as the public type implies. */
function toOffset(offset) {
    if (offset === undefined || offset === null) {
        return 0;
    }
    if (typeof offset === 'object') {
        const low = offset.low;
        const high = offset.high;
        if (typeof low === 'number' && typeof high === 'number') {
            return (high >>> 0) * 4294967296 + (low >>> 0);
        }
    }
    const value = Number(offset);
    return isNaN(value) ? 0 : value;
}

// Internal-only — phases the SDK walks through during a map subscribe.
// Not exposed on the public surface; kept here so it doesn't leak via
// `export * from "./types"` in index.ts.
var MapPhase;
(function (MapPhase) {
    MapPhase[MapPhase["Live"] = 0] = "Live";
    MapPhase[MapPhase["Stream"] = 1] = "Stream";
    MapPhase[MapPhase["State"] = 2] = "State";
})(MapPhase || (MapPhase = {}));
/** Base subscription to a channel — all subscription logic lives here. */
class BaseSubscription extends EventEmitter {
    /** Subscription constructor should not be used directly, create subscriptions using Client method. */
    constructor(centrifuge, channel, options) {
        super();
        this._resubscribeTimeout = null;
        this._refreshTimeout = null;
        /** The offset of the publication being dispatched, until its handler returned. See _getOffset. */
        this._pendingOffset = null;
        // @ts-ignore – this is set by a client in centrifuge.ts.
        this._removed = false;
        // Stream getState callback (external state for stream subscriptions)
        this._getState = null;
        // Map subscription state
        this._map = false;
        this._mapPresenceType = 1; // 1=MAP, 2=MAP_CLIENTS, 3=MAP_USERS
        // @ts-ignore – this is used for tracking map subscription phase state.
        this._mapPhase = null;
        // Publications of state and stream pages, decoded once the live reply tells
        // whether delta is on (see _handleMapLiveResponse).
        this._mapStateBuffer = [];
        this._mapStreamBuffer = [];
        this._mapCursor = ''; // Pagination cursor
        this._mapPageSize = 0; // Page size (0 = use server default)
        this._mapUnrecoverableStrategy = 'from_scratch';
        // Incremented when the map position is reset (setTagsFilter, state invalidation),
        // so a subscribe that completes meanwhile doesn't store its position over that.
        this._mapPositionResets = 0;
        // The subscribe flow in progress: replies and continuations of an earlier flow are
        // ignored. Every map flow and every unsubscribe starts a new one, so a subscribe
        // reply still in flight when the app calls unsubscribe() and subscribe() doesn't
        // complete the new subscribe. A map flow pages from its own stream offset and
        // epoch; the subscription position (_offset/_epoch) moves only with what the app
        // received.
        this._subscribeFlow = 0;
        // Incremented whenever the subscription stops being subscribed: a token or signature
        // obtained for an earlier subscribed period is outdated (see _refresh).
        this._refreshGeneration = 0;
        // Set while a shared poll subscription completes its subscribe: tracking changes of
        // handlers of its events go out with the replay that follows, not before it too.
        this._sharedPollReplayPending = false;
        // Incremented by every state change: an event of a change a 'state' handler
        // followed with another one is outdated, even when that one came back to the
        // same state.
        this._stateTransitions = 0;
        // Over emulation, the shared poll track / untrack requests of the channel, one
        // at a time (see _sharedPollSerial).
        this._sharedPollQueue = Promise.resolve();
        // The flow of the subscribe command (or map page) waiting for its reply.
        this._subscribeCallFlow = null;
        // Over emulation, the unsubscribe of a subscribe in flight: sent once the
        // subscribe's reply comes (see _setUnsubscribed).
        this._deferredUnsubscribe = null;
        this._mapFlowRecovering = false;
        this._mapFlowOffset = 0;
        this._mapFlowEpoch = null;
        this._mapFlowPositionResets = 0;
        // Publish debounce state (protocol-level, controlled by server)
        this._debounceMs = 0;
        this._debouncePending = new Map();
        // Shared poll subscription state
        this._sharedPoll = false;
        this._sharedPollEpoch = '';
        this._sharedPollTrackedItems = new Map(); // key → version
        this._sharedPollGetSignature = null;
        // TTL-driven and 109-driven consolidating refresh (one call to getSignature
        // covering all tracked keys, replaces the library with one entry).
        this._sharedPollSignatureRefreshTimeout = null;
        this._sharedPollSignatureRefreshAttempts = 0;
        // Per-track-command transient retry (track call failed with temporary error).
        this._sharedPollTrackRetryTimeout = null;
        this._sharedPollTrackRetryAttempts = 0;
        // Replay-getSignature retry (Phase 2 of _sharedPollReplayTrack failed). Held
        // separately so it can't clobber the refresh timer or accumulate backoff
        // attempts onto refresh failures.
        this._sharedPollReplayRetryTimeout = null;
        this._sharedPollReplayRetryAttempts = 0;
        // Library of HMAC signatures previously obtained for track() calls.
        // Each entry covers the exact key set originally signed; reused on reconnect
        // so we don't hit the application's getSignature endpoint for every client
        // during mass reconnect storms. Periodic refresh consolidates entries into
        // one combined signature covering all currently tracked keys.
        this._sharedPollSignatures = [];
        // Earliest scheduled refresh time (unix milliseconds) across all received
        // track responses. Server returns MIN ttl per response; SDK keeps the
        // single earliest deadline as the refresh target. Cleared on consolidation
        // refresh and on explicit unsubscribe.
        this._sharedPollSignatureRefreshTargetMs = null;
        // Guard against concurrent refresh calls — multiple 109 errors during
        // reconnect replay could otherwise trigger overlapping getSignature calls.
        this._sharedPollSignatureRefreshInFlight = false;
        // A refresh asked for while one was in flight for keys it doesn't cover (e.g.
        // a 109 of a key tracked since it started): run after it.
        this._sharedPollSignatureRefreshAgain = false;
        // The keys of the refresh in flight.
        this._sharedPollSignatureRefreshKeys = new Set();
        this.channel = channel;
        this.state = SubscriptionState.Unsubscribed;
        this._centrifuge = centrifuge;
        this._token = '';
        this._getToken = null;
        this._data = null;
        this._getData = null;
        this._recover = false;
        this._offset = null;
        this._epoch = null;
        this._id = 0;
        this._recoverable = false;
        this._positioned = false;
        this._joinLeave = false;
        this._minResubscribeDelay = 500;
        this._maxResubscribeDelay = 20000;
        this._resubscribeTimeout = null;
        this._resubscribeAttempts = 0;
        this._promises = {};
        this._promiseId = 0;
        this._inflight = false;
        this._refreshTimeout = null;
        this._delta = '';
        this._delta_negotiated = false;
        this._tagsFilter = null;
        this._prevValueMap = new Map();
        this._unsubPromise = Promise.resolve();
        this._deltaNumPubs = 0;
        this._deltaNumFull = 0;
        this._deltaNumDelta = 0;
        this._deltaBytesReceived = 0;
        this._deltaBytesDecoded = 0;
        this._setOptions(options);
        this.type = this._sharedPoll ? 'shared_poll' : this._map ? 'map' : 'stream';
        // @ts-ignore – we are hiding some symbols from public API autocompletion.
        if (this._centrifuge._debugEnabled) {
            this.on('state', (ctx) => {
                this._debug('subscription state', channel, ctx.oldState, '->', ctx.newState);
            });
            this.on('error', (ctx) => {
                this._debug('subscription error', channel, ctx);
            });
        }
        else {
            // Avoid unhandled exception in EventEmitter for non-set error handler.
            this.on('error', function () { Function.prototype(); });
        }
    }
    /** ready returns a Promise which resolves upon subscription goes to Subscribed
     * state and rejects in case of subscription goes to Unsubscribed state.
     * Optional timeout can be passed.*/
    ready(timeout) {
        if (this.state === SubscriptionState.Unsubscribed) {
            return Promise.reject({ code: errorCodes.subscriptionUnsubscribed, message: this.state });
        }
        if (this.state === SubscriptionState.Subscribed) {
            return Promise.resolve();
        }
        return new Promise((res, rej) => {
            const id = this._nextPromiseId();
            const ctx = {
                resolve: res,
                reject: rej
            };
            if (timeout) {
                ctx.timeout = setTimeout(() => {
                    // A call that gave up waiting leaves no waiter behind.
                    delete this._promises[id];
                    rej({ code: errorCodes.timeout, message: 'timeout' });
                }, timeout);
            }
            this._promises[id] = ctx;
        });
    }
    /** subscribe to a channel.*/
    subscribe() {
        if (this._removed) {
            // The client no longer tracks it: the server would keep a subscription whose
            // publications are dropped, and which is never subscribed again on reconnect.
            throw new Error('Subscription to the channel ' + this.channel + ' was removed from the client');
        }
        if (this._isSubscribed()) {
            return;
        }
        if (this._isUnsubscribed()) {
            // A subscribe in progress keeps its backoff.
            this._resubscribeAttempts = 0;
        }
        this._setSubscribing(subscribingCodes.subscribeCalled, 'subscribe called');
    }
    /** unsubscribe from a channel, keeping position state.*/
    unsubscribe() {
        this._setUnsubscribed(unsubscribedCodes.unsubscribeCalled, 'unsubscribe called', true);
    }
    _debouncedPublish(key, data, isMap) {
        const existing = this._debouncePending.get(key);
        if (existing) {
            // Update pending value, mark as dirty, keep existing timer.
            existing.data = data;
            existing.dirty = true;
            return Promise.resolve({});
        }
        // First publish for this key — send immediately, start debounce timer.
        const entry = { data, dirty: false, timer: null };
        entry.timer = setTimeout(() => {
            const pending = this._debouncePending.get(key);
            if (!pending || !pending.dirty) {
                // No new data since last send — just clean up.
                this._debouncePending.delete(key);
                return;
            }
            // Send the latest pending value, reset dirty flag, restart timer.
            pending.dirty = false;
            const sendData = pending.data;
            const sendFn = isMap
                ? this._centrifuge.mapPublish(this.channel, key, sendData)
                : this._centrifuge.publish(this.channel, sendData);
            sendFn.catch(() => { });
            // Restart timer for next window.
            pending.timer = setTimeout(() => {
                const p = this._debouncePending.get(key);
                if (!p || !p.dirty) {
                    this._debouncePending.delete(key);
                    return;
                }
                // Recursive — but in practice debounce windows are short. Nobody awaits
                // this send, so swallow errors like the timer-driven send above does.
                this._debouncePending.delete(key);
                this._debouncedPublish(key, p.data, isMap).catch(() => { });
            }, this._debounceMs);
        }, this._debounceMs);
        this._debouncePending.set(key, entry);
        // Send first publish immediately.
        const sendFn = isMap
            ? this._centrifuge.mapPublish(this.channel, key, data)
            : this._centrifuge.publish(this.channel, data);
        return sendFn;
    }
    _cancelDebounce(key) {
        const existing = this._debouncePending.get(key);
        if (existing) {
            clearTimeout(existing.timer);
            this._debouncePending.delete(key);
        }
    }
    _cancelAllDebounce() {
        for (const [, entry] of this._debouncePending) {
            clearTimeout(entry.timer);
        }
        this._debouncePending.clear();
    }
    /** get online presence for a channel.*/
    presence() {
        return __awaiter(this, void 0, void 0, function* () {
            yield this._methodCall();
            return this._centrifuge.presence(this.channel);
        });
    }
    /** presence stats for a channel (num clients and unique users).*/
    presenceStats() {
        return __awaiter(this, void 0, void 0, function* () {
            yield this._methodCall();
            return this._centrifuge.presenceStats(this.channel);
        });
    }
    /**
     * Sets server-side tags filter for the subscription.
     * This only applies on the next subscription attempt, not the current one.
     * Cannot be used together with delta option.
     *
     * @param tagsFilter - Filter configuration object or null to remove filter
     * @throws {Error} If both delta and tagsFilter are configured
     *
     * @example
     * ```typescript
     * // Simple equality filter
     * sub.setTagsFilter({
     *   key: 'ticker',
     *   cmp: 'eq',
     *   val: 'BTC'
     * });
     * ```
     *
     * @example
     * ```typescript
     * // Complex filter with logical operators
     * sub.setTagsFilter({
     *   op: 'and',
     *   nodes: [
     *     { key: 'ticker', cmp: 'eq', val: 'BTC' },
     *     { key: 'price', cmp: 'gt', val: '50000' }
     *   ]
     * });
     * ```
     *
     * @example
     * ```typescript
     * // Filter with IN operator
     * sub.setTagsFilter({
     *   key: 'ticker',
     *   cmp: 'in',
     *   vals: ['BTC', 'ETH', 'SOL']
     * });
     * ```
     */
    setTagsFilter(tagsFilter) {
        if (tagsFilter && this._delta) {
            throw new Error('cannot use delta and tagsFilter together');
        }
        this._tagsFilter = tagsFilter;
        // For map subscriptions, changing the filter invalidates the local state —
        // the next subscribe must go through full STATE phase, not stream recovery.
        if (this._map) {
            this._recover = false;
            this._offset = null;
            this._epoch = null;
            this._mapPositionResets++;
        }
    }
    /** setData allows setting subscription data. This only applied on the next subscription attempt,
     * Note that if getData callback is configured, it will override this value during resubscriptions. */
    setData(data) {
        this._data = data;
    }
    /** deltaStats returns delta compression statistics for this subscription.
     * Only meaningful when delta compression is enabled (delta: 'fossil'). */
    deltaStats() {
        const bytesDecoded = this._deltaBytesDecoded;
        return {
            numPublications: this._deltaNumPubs,
            numFullPayloads: this._deltaNumFull,
            numDeltaPayloads: this._deltaNumDelta,
            bytesReceived: this._deltaBytesReceived,
            bytesDecoded: bytesDecoded,
            compressionRatio: bytesDecoded > 0 ? 1 - this._deltaBytesReceived / bytesDecoded : 0,
        };
    }
    _methodCall() {
        if (this._isSubscribed()) {
            return Promise.resolve();
        }
        if (this._isUnsubscribed()) {
            return Promise.reject({
                code: errorCodes.subscriptionUnsubscribed,
                message: this.state
            });
        }
        return new Promise((resolve, reject) => {
            // @ts-ignore – we are hiding some symbols from public API autocompletion.
            const timeoutDuration = this._centrifuge._config.timeout;
            const id = this._nextPromiseId();
            const timeout = setTimeout(() => {
                delete this._promises[id];
                reject({ code: errorCodes.timeout, message: 'timeout' });
            }, timeoutDuration);
            this._promises[id] = {
                timeout,
                resolve,
                reject
            };
        });
    }
    _nextPromiseId() {
        return ++this._promiseId;
    }
    _needRecover() {
        return this._recover === true;
    }
    _isUnsubscribed() {
        return this.state === SubscriptionState.Unsubscribed;
    }
    _isSubscribing() {
        return this.state === SubscriptionState.Subscribing;
    }
    _isSubscribed() {
        return this.state === SubscriptionState.Subscribed;
    }
    _setState(newState) {
        if (this.state !== newState) {
            const oldState = this.state;
            this.state = newState;
            this._stateTransitions++;
            this.emit('state', { newState, oldState, channel: this.channel });
            return true;
        }
        return false;
    }
    _usesToken() {
        return this._token !== '' || this._getToken !== null;
    }
    _clearSubscribingState() {
        this._resubscribeAttempts = 0;
        this._clearResubscribeTimeout();
    }
    _clearSubscribedState() {
        this._clearRefreshTimeout();
        // A token refresh in progress belongs to the subscription that ends here.
        this._refreshGeneration++;
        this._cancelAllDebounce();
        this._clearSharedPollSignatureRefresh();
        this._clearSharedPollTrackRetry();
        this._clearSharedPollReplayRetry();
        // Drop the stale refresh target — the replay after reconnect will set a
        // fresh one from the next batch of track responses.
        this._sharedPollSignatureRefreshTargetMs = null;
        // Reset the in-flight guard so refresh can run again after reconnect.
        this._sharedPollSignatureRefreshInFlight = false;
        this._sharedPollSignatureRefreshAgain = false;
        // NOTE: do NOT clear _sharedPollSignatures or _sharedPollTrackedItems.
        // They persist across reconnects so _sharedPollReplayTrack can re-send
        // tracks using the cached signatures — avoids hitting getSignature for
        // every client during mass reconnect storms. Cleared only on explicit
        // unsubscribe via _setUnsubscribed.
    }
    /** Called on "state invalidated" — unsubscribe code 2502 for this channel,
     *  or connection disconnect code 3014. Clears the token when getToken is set
     *  (next subscribe fetches a fresh one) and the fossil delta base (every
     *  subscription type uses _prevValueMap; a stale base would corrupt decoding
     *  of the first publication after re-subscribe).
     *
     *  Without getToken there is no new token to get: the subscription keeps the
     *  token it has (or none) and resubscribes with it. The server rejects it if
     *  it's no longer valid.
     *
     *  Map subscriptions restart from scratch: their recovery position and
     *  materialized-state buffers are dropped so the next subscribe does a full
     *  STATE re-sync.
     *
     *  Stream/shared-poll subscriptions instead reset the recovery position to a
     *  sentinel epoch ("_") the server can never match (offset 0), leaving
     *  _recover untouched: a recoverable subscription then resubscribes with
     *  was_recovering=true, recovered=false (so the app reloads via its existing
     *  recovery-failure path rather than treating it as a brand-new first
     *  subscribe), while a non-recoverable one simply resubscribes. The real
     *  epoch/offset are adopted from the subscribe reply. */
    _invalidateState() {
        if (this._getToken !== null) {
            this._token = '';
        }
        this._prevValueMap = new Map();
        if (this._map) {
            this._offset = null;
            this._epoch = null;
            this._recover = false;
            this._mapPositionResets++;
            this._mapStateBuffer = [];
            this._mapStreamBuffer = [];
            this._mapCursor = '';
            this._mapPhase = null;
        }
        else if (this._offset !== null) {
            // Only a position that exists: without one, e.g. before getState was called,
            // the next subscribe must still load the state.
            // "_" is a sentinel, not an epoch the server can produce: the recovery of the
            // next subscribe is meant to fail, so the app reloads through its
            // recovery-failure path instead of taking the resubscribe for a first one.
            // It has to be non-empty — an empty epoch means "any epoch" to the server,
            // which would let the recovery succeed from now-invalidated state.
            this._offset = 0;
            this._epoch = '_';
        }
    }
    _setSubscribed(result) {
        if (!this._isSubscribing()) {
            return;
        }
        this._clearSubscribingState();
        if (result.id) {
            this._id = result.id;
        }
        if (result.recoverable) {
            this._recover = true;
            // After a recovery the server replies with the position recovered from: each
            // recovered publication delivered below moves it. A map subscription differs:
            // its live reply carries the top of the stream (see _handleMapLiveResponse).
            this._offset = toOffset(result.offset);
            this._epoch = result.epoch || '';
        }
        else {
            // A channel the server doesn't recover is no channel to recover from. Without
            // this, a subscription given a position by `since` or getState keeps asking to
            // recover on every resubscribe, and the app is told a recovery failed
            // (wasRecovering true, recovered false) every time, though nothing was lost.
            // The flag comes from every reply, so recovery enabled later is picked up.
            this._recover = false;
        }
        if (result.delta) {
            this._delta_negotiated = true;
        }
        else {
            this._delta_negotiated = false;
        }
        if (result.publish_debounce) {
            this._debounceMs = result.publish_debounce;
        }
        if (this._sharedPoll) {
            const newEpoch = result.epoch || '';
            if (this._sharedPollEpoch !== '' && this._sharedPollEpoch !== newEpoch) {
                // Epoch changed (server restart, mode change, node switch) —
                // stored synthetic versions are invalid, reset to 0.
                for (const key of this._sharedPollTrackedItems.keys()) {
                    this._sharedPollTrackedItems.set(key, 0);
                }
            }
            this._sharedPollEpoch = newEpoch;
        }
        this._setState(SubscriptionState.Subscribed);
        // A 'state' handler may have unsubscribed already: no subscribed event then.
        if (!this._isSubscribed()) {
            return;
        }
        // @ts-ignore – we are hiding some methods from public API autocompletion.
        const ctx = this._centrifuge._getSubscribeContext(this.channel, result);
        this.emit('subscribed', ctx);
        // A 'subscribed' handler may have unsubscribed, and subscribed again: promises
        // made since then wait for that subscribe.
        if (!this._isSubscribed()) {
            return;
        }
        this._resolvePromises();
        // A 'publication' handler may have unsubscribed: the rest of the recovered
        // publications must not be delivered or move the position.
        const pubs = result.publications || [];
        for (let i = 0; i < pubs.length && this._isSubscribed(); i++) {
            this._handlePublication(pubs[i]);
        }
        if (result.expires === true && this._isSubscribed()) {
            this._refreshTimeout = setTimeout(() => this._refresh(), ttlMilliseconds(result.ttl));
        }
    }
    _setSubscribing(code, reason) {
        return __awaiter(this, void 0, void 0, function* () {
            if (this._isSubscribing()) {
                return;
            }
            if (this._isSubscribed()) {
                this._clearSubscribedState();
            }
            // Channel compaction: the numeric channel id is scoped to the connected
            // session — drop it when moving back to subscribing (e.g. on reconnect). The
            // next subscribe reply re-establishes it (the server may reuse the same id).
            this._id = 0;
            // Not when a 'state' handler changed the state again: the event would come after
            // that change's own events, out of order.
            const transition = this._stateTransitions + 1;
            if (this._setState(SubscriptionState.Subscribing) && this._stateTransitions === transition) {
                this.emit('subscribing', { channel: this.channel, code: code, reason: reason });
            }
            // @ts-ignore – for performance reasons only await _unsubPromise for emulution case where it's required.
            if (this._centrifuge._transport && this._centrifuge._transport.emulation()) {
                yield this._unsubPromise;
                // Also for a subscription of this channel removed from the client: the server
                // may otherwise handle this subscribe before its unsubscribe.
                // @ts-ignore – we are hiding some symbols from public API autocompletion.
                yield this._centrifuge._removedSubscriptionUnsubscribed(this.channel);
                // And for the shared poll requests of an earlier subscription: the server
                // may otherwise apply them to this one.
                yield this._sharedPollQueue;
            }
            if (!this._isSubscribing()) {
                return;
            }
            this._subscribe();
        });
    }
    _subscribe() {
        this._debug('subscribing on', this.channel);
        if (!this._isTransportOpen()) {
            this._debug('delay subscribe on', this.channel, 'till connected');
            return null;
        }
        if (this._inflight) {
            return null;
        }
        this._inflight = true;
        // Route to map subscribe flow if map mode is enabled
        if (this._map) {
            this._mapSubscribe();
            return null;
        }
        // Stream getState: call app's callback to load state + get position.
        // Only called when we don't have a saved position (first subscribe or after
        // position reset due to failed recovery). On normal reconnects with a valid
        // saved position, we skip getState and let the server try recovery — getState
        // is only called again if recovery fails (see _setSubscribed).
        // Continuations of this flow (getState, getToken, getData) do nothing once
        // it is outdated: after unsubscribe(), maybe followed by subscribe() and a
        // flow of its own.
        const flow = this._subscribeFlow;
        if (this._getState && this._offset === null) {
            this._loadStreamState(flow);
            return null;
        }
        if (this._canSubscribeWithoutGettingToken()) {
            return this._subscribeWithoutToken(flow);
        }
        this._getSubscriptionToken()
            .then(token => this._handleTokenResponse(token, flow))
            .catch(e => this._handleTokenError(e, flow));
        return null;
    }
    _flowOutdated(flow) {
        return flow !== this._subscribeFlow;
    }
    // Over emulation commands go in separate requests the server may handle in any
    // order: an unsubscribe of a subscribe in flight could overtake it, and the
    // server would keep the subscription. The unsubscribe waits for the
    // subscribe's reply then.
    _mustDeferUnsubscribe() {
        // @ts-ignore – we are hiding some symbols from public API autocompletion.
        const transport = this._centrifuge._transport;
        return this._subscribeCallFlow === this._subscribeFlow && !!transport && transport.emulation();
    }
    // Called first by the reply handlers of a subscribe command or map page. True
    // when the reply belongs to a subscribe whose unsubscribe was deferred, which is
    // handled here: the unsubscribe goes out if the subscribe succeeded. A timeout
    // leaves unknown whether the server subscribed: the client reconnects.
    _settleSubscribeCall(flow, ok, error) {
        if (this._subscribeCallFlow === flow) {
            this._subscribeCallFlow = null;
        }
        const deferred = this._deferredUnsubscribe;
        if (deferred === null || deferred.flow !== flow) {
            return false;
        }
        this._deferredUnsubscribe = null;
        if (ok) {
            // @ts-ignore – we are hiding some symbols from public API autocompletion.
            this._centrifuge._unsubscribe(this).then(deferred.resolve);
            return true;
        }
        deferred.resolve();
        if (error && error.code === errorCodes.timeout) {
            // @ts-ignore – we are hiding some symbols from public API autocompletion.
            this._centrifuge._disconnect(connectingCodes.subscribeTimeout, 'subscribe timeout', true);
        }
        return true;
    }
    _isTransportOpen() {
        // @ts-ignore – we are hiding some symbols from public API autocompletion.
        return this._centrifuge._transportIsOpen;
    }
    _canSubscribeWithoutGettingToken() {
        return !this._usesToken() || !!this._token;
    }
    _subscribeWithoutToken(flow) {
        if (this._getData) {
            this._getDataAndSubscribe(this._token, flow);
            return null;
        }
        else {
            return this._sendSubscribe(this._token);
        }
    }
    /** Load stream position from app via getState callback, then proceed to subscribe
     * with recovery from that position. Called only when _offset is null:
     * - Initial subscribe (no saved position)
     * - After position reset due to failed recovery (see _setSubscribed)
     *
     * NOT called on normal reconnects where the SDK has a saved position — in that
     * case recovery is attempted first, and getState is only invoked if recovery fails.
     *
     * The app's getState callback should:
     * 1. Read cf_stream_top_position (or equivalent) FIRST to capture the stream position
     * 2. Then read its own data from the database/API
     * 3. Render/update the UI
     * 4. Return the captured stream position
     *
     * This order is critical: reading position first ensures it's a lower bound.
     * Recovered publications may overlap with data the app already loaded — this
     * requires idempotent updates or offset-based dedup. */
    _loadStreamState(flow) {
        if (!this._isSubscribing()) {
            this._inflight = false;
            return;
        }
        this._callAsync(() => this._getState()).then(result => {
            if (this._flowOutdated(flow)) {
                return;
            }
            if (!this._isSubscribing()) {
                this._inflight = false;
                return;
            }
            // Store stream position from app's source of truth.
            this._offset = toOffset(result.offset);
            this._epoch = result.epoch;
            this._recover = true;
            // Proceed with normal subscribe flow (token → sendSubscribe).
            if (this._canSubscribeWithoutGettingToken()) {
                this._subscribeWithoutToken(flow);
            }
            else {
                this._getSubscriptionToken()
                    .then(token => this._handleTokenResponse(token, flow))
                    .catch(e => this._handleTokenError(e, flow));
            }
        }).catch(e => {
            if (this._flowOutdated(flow)) {
                return;
            }
            if (!this._isSubscribing()) {
                this._inflight = false;
                return;
            }
            // Match map subscription error handling: route through _subscribeError
            // which emits error event and schedules resubscribe for temporary errors
            // (code < 100), matching the map's _handleMapSubscribeError pattern.
            this._inflight = false;
            this._subscribeError({
                code: errorCodes.subscriptionGetState,
                message: (e === null || e === void 0 ? void 0 : e.toString()) || 'getState failed',
                temporary: true,
            });
        });
    }
    _getDataAndSubscribe(token, flow) {
        if (!this._getData) {
            this._inflight = false;
            return;
        }
        this._callAsync(() => this._getData({ channel: this.channel }))
            .then(data => {
            if (this._flowOutdated(flow)) {
                return;
            }
            if (!this._isSubscribing()) {
                this._inflight = false;
                return;
            }
            this._data = data;
            this._sendSubscribe(token);
        })
            .catch(e => this._handleGetDataError(e, flow));
    }
    _handleGetDataError(error, flow) {
        if (this._flowOutdated(flow)) {
            return;
        }
        if (!this._isSubscribing()) {
            this._inflight = false;
            return;
        }
        if (error instanceof UnauthorizedError) {
            this._inflight = false;
            this._failUnauthorized();
            return;
        }
        this._emitError({
            type: 'subscribeData',
            channel: this.channel,
            error: {
                code: errorCodes.badConfiguration,
                message: (error === null || error === void 0 ? void 0 : error.toString()) || ''
            }
        }, () => {
            this._inflight = false;
            this._scheduleResubscribe();
        });
    }
    _handleTokenResponse(token, flow) {
        if (this._flowOutdated(flow)) {
            return;
        }
        if (!this._isSubscribing()) {
            this._inflight = false;
            return;
        }
        if (!token) {
            this._inflight = false;
            this._failUnauthorized();
            return;
        }
        this._token = token;
        if (this._getData) {
            this._getDataAndSubscribe(token, flow);
        }
        else {
            this._sendSubscribe(token);
        }
    }
    _handleTokenError(error, flow) {
        if (this._flowOutdated(flow)) {
            return;
        }
        if (!this._isSubscribing()) {
            this._inflight = false;
            return;
        }
        if (error instanceof UnauthorizedError) {
            this._inflight = false;
            this._failUnauthorized();
            return;
        }
        this._emitError({
            type: 'subscribeToken',
            channel: this.channel,
            error: {
                code: errorCodes.subscriptionSubscribeToken,
                message: (error === null || error === void 0 ? void 0 : error.toString()) || ''
            }
        }, () => {
            this._inflight = false;
            this._scheduleResubscribe();
        });
    }
    _sendSubscribe(token) {
        if (!this._isTransportOpen()) {
            this._inflight = false;
            return null;
        }
        const cmd = this._buildSubscribeCommand(token);
        const flow = this._subscribeFlow;
        this._subscribeCallFlow = flow;
        // @ts-ignore – we are hiding some symbols from public API autocompletion.
        // An exception while handling the reply stops the client (see _dispatchFailed).
        // next() is still called, so replies of a later connection aren't blocked.
        this._centrifuge._call(cmd).then(resolveCtx => {
            try {
                if (this._settleSubscribeCall(flow, true)) {
                    return;
                }
                if (flow !== this._subscribeFlow) {
                    // The app unsubscribed meanwhile, maybe to subscribe again.
                    return;
                }
                this._inflight = false;
                this._handleSubscribeResponse(resolveCtx.reply.subscribe);
            }
            catch (err) {
                // @ts-ignore – we are hiding some symbols from public API autocompletion.
                this._centrifuge._dispatchFailed(err);
            }
            finally {
                if (resolveCtx.next) {
                    resolveCtx.next();
                }
            }
        }, rejectCtx => {
            try {
                if (this._settleSubscribeCall(flow, false, rejectCtx.error)) {
                    return;
                }
                if (flow !== this._subscribeFlow) {
                    return;
                }
                this._inflight = false;
                this._handleSubscribeError(rejectCtx.error);
            }
            catch (err) {
                // @ts-ignore – we are hiding some symbols from public API autocompletion.
                this._centrifuge._rejectionFailed(err, rejectCtx);
            }
            finally {
                if (rejectCtx.next) {
                    rejectCtx.next();
                }
            }
        });
        return cmd;
    }
    _buildSubscribeCommand(token) {
        const req = { channel: this.channel };
        if (token)
            req.token = token;
        if (this._data)
            req.data = this._data;
        // Shared poll: simple subscribe with type=4, no positioning/recovery fields.
        if (this._sharedPoll) {
            req.type = 4;
            if (this._delta)
                req.delta = this._delta;
            return { subscribe: req };
        }
        if (this._positioned)
            req.positioned = true;
        if (this._recoverable)
            req.recoverable = true;
        if (this._joinLeave)
            req.join_leave = true;
        req.flag = subscriptionFlags.channelCompaction;
        if (this._getState) {
            req.flag |= subscriptionFlags.rejectUnrecovered;
        }
        if (this._needRecover()) {
            req.recover = true;
            const offset = this._getOffset();
            if (offset)
                req.offset = offset;
            const epoch = this._getEpoch();
            if (epoch)
                req.epoch = epoch;
        }
        if (this._delta)
            req.delta = this._delta;
        if (this._tagsFilter)
            req.tf = this._tagsFilter;
        return { subscribe: req };
    }
    _debug(...args) {
        // @ts-ignore – we are hiding some symbols from public API autocompletion.
        this._centrifuge._debug(...args);
    }
    /** @internal An exception escaping a handler stops the client: see Centrifuge._handlerFailed. */
    emit(event, ...args) {
        try {
            return EventEmitter.prototype.emit.call(this, event, ...args);
        }
        catch (e) {
            this._centrifuge._handlerFailed(e);
            return true;
        }
    }
    _handleSubscribeError(error) {
        if (!this._isSubscribing()) {
            return;
        }
        if (error.code === errorCodes.connectionClosed) {
            // The transport closed with the subscribe in flight: no error of the
            // subscribe, the next connection subscribes again without a backoff.
            return;
        }
        if (error.code === errorCodes.timeout) {
            // @ts-ignore – we are hiding some symbols from public API autocompletion.
            this._centrifuge._disconnect(connectingCodes.subscribeTimeout, 'subscribe timeout', true);
            return;
        }
        if (error.code === 112 && this._getState) {
            // Unrecoverable position with getState: reset position so next
            // subscribe attempt calls getState() to reload app state from scratch.
            this._offset = null;
            this._epoch = null;
            this._recover = false;
            this._prevValueMap = new Map();
            this._scheduleResubscribe();
            return;
        }
        this._subscribeError(error);
    }
    _handleSubscribeResponse(result) {
        if (!this._isSubscribing()) {
            return;
        }
        this._sharedPollReplayPending = this._sharedPoll;
        try {
            this._setSubscribed(result);
        }
        finally {
            this._sharedPollReplayPending = false;
        }
        // After shared poll subscribe, replay tracked items if any.
        if (this._sharedPoll) {
            this._sharedPollReplayTrack();
        }
    }
    _setUnsubscribed(code, reason, sendUnsubscribe) {
        if (this._isUnsubscribed()) {
            return Promise.resolve();
        }
        // Set before the unsubscribed event: a subscribe() from its handler waits for
        // the unsubscribe reply over emulation (see _setSubscribing).
        let promise = Promise.resolve();
        if (this._isSubscribed()) {
            if (sendUnsubscribe) {
                // @ts-ignore – we are hiding some methods from public API autocompletion.
                promise = this._unsubPromise = this._centrifuge._unsubscribe(this);
            }
            this._clearSubscribedState();
        }
        else if (this._isSubscribing()) {
            if (this._inflight && sendUnsubscribe) {
                if (this._mustDeferUnsubscribe()) {
                    const flow = this._subscribeFlow;
                    promise = this._unsubPromise = new Promise(resolve => {
                        this._deferredUnsubscribe = { flow, resolve };
                    });
                }
                else {
                    // @ts-ignore – we are hiding some methods from public API autocompletion.
                    promise = this._unsubPromise = this._centrifuge._unsubscribe(this);
                }
            }
            this._clearSubscribingState();
        }
        this._inflight = false;
        // Replies and continuations of a subscribe in progress must not complete a later one.
        this._subscribeFlow++;
        // Channel compaction: the numeric channel id is scoped to the active
        // subscription. Drop it so a push for the old id (e.g. one in flight when we
        // unsubscribe) is no longer routed to this subscription.
        this._id = 0;
        this._sharedPollEpoch = '';
        // Explicit unsubscribe — drop all shared-poll state so a subsequent
        // subscribe starts cold. Reconnects use _clearSubscribedState (above)
        // which preserves the signature library and tracked items.
        this._sharedPollSignatures = [];
        this._sharedPollTrackedItems.clear();
        this._sharedPollSignatureRefreshInFlight = false;
        this._sharedPollSignatureRefreshAgain = false;
        this._sharedPollSignatureRefreshTargetMs = null;
        this._cancelAllDebounce();
        // Waiters fail before the events: a handler subscribing again makes waiters of
        // the new subscribe, which must not fail with this one.
        this._rejectPromises({ code: errorCodes.subscriptionUnsubscribed, message: SubscriptionState.Unsubscribed });
        // Not when a 'state' handler changed the state again (see _setSubscribing).
        const transition = this._stateTransitions + 1;
        if (this._setState(SubscriptionState.Unsubscribed) && this._stateTransitions === transition) {
            this.emit('unsubscribed', { channel: this.channel, code: code, reason: reason });
        }
        return promise;
    }
    _handlePublication(pub) {
        if (this._sharedPoll && pub.key && !pub.removed && hasOffset(pub.version)) {
            // Versions dedupe: one not newer than the version held for the key is a
            // duplicate (e.g. the reply of a second track request of the key) or
            // older. Dropped before delta decoding, which would move the key's base.
            const known = this._sharedPollTrackedItems.get(pub.key);
            if (known !== undefined && known > 0 && toOffset(pub.version) <= known) {
                return;
            }
        }
        if (this._delta && this._delta_negotiated) {
            // For map and shared poll subs, delta is per-key.
            // For non-map subs, delta is a single chain regardless of pub.key.
            const deltaKey = (this._map || this._sharedPoll) ? (pub.key || '') : '';
            if (pub.removed) {
                // A removal carries no payload to decode, and ends the key's delta chain.
                this._prevValueMap.delete(deltaKey);
            }
            else {
                // @ts-ignore – we are hiding some methods from public API autocompletion.
                const { newData, newPrevValue, isDelta, wireBytes, fullBytes } = this._centrifuge._codec.applyDeltaIfNeeded(pub, this._prevValueMap.get(deltaKey));
                pub.data = newData;
                this._deltaNumPubs++;
                this._deltaBytesReceived += wireBytes;
                this._deltaBytesDecoded += fullBytes;
                if (isDelta) {
                    this._deltaNumDelta++;
                }
                else {
                    this._deltaNumFull++;
                }
                this._prevValueMap.set(deltaKey, newPrevValue);
            }
        }
        let ctx;
        if (this._sharedPoll) {
            // Ignore publications for keys the user is no longer tracking.
            // Common race: SDK replays a cached signature batch on reconnect with
            // some keys the user untracked locally; the chained untrack hasn't
            // reached the server yet, so the server may push updates for those
            // keys in the meantime. Without this guard those updates would
            // re-insert the keys into _sharedPollTrackedItems and emit 'update'
            // events the user already opted out of.
            if (pub.key && !this._sharedPollTrackedItems.has(pub.key)) {
                return;
            }
            // The tracked version is the key's position: it moves with the position below.
            ctx = this._getSharedPollUpdateContext(pub);
        }
        else if (this._map) {
            ctx = this._getMapUpdateContext(pub);
        }
        else {
            // @ts-ignore – we are hiding some methods from public API autocompletion.
            ctx = this._centrifuge._getPublicationContext(this.channel, pub);
        }
        // The position moves after the app has the publication, so the position it can
        // observe never runs ahead of what it received: a handler that throws (which
        // stops the client), or that unsubscribes before the last event, doesn't skip it. A subscribe command built
        // while a handler runs still recovers after this publication, because _getOffset
        // prefers the pending offset — a resubscribe from the handler gets no duplicate.
        if (this._map || this._sharedPoll) {
            this.emit('publication', ctx);
            if (!this._isSubscribed()) {
                return;
            }
            this._setPublicationPosition(pub);
            this.emit('update', ctx);
        }
        else {
            this._pendingOffset = hasOffset(pub.offset) ? toOffset(pub.offset) : null;
            const failures = this._centrifuge._handlerFailures;
            try {
                this.emit('publication', ctx);
            }
            finally {
                this._pendingOffset = null;
            }
            // A publication whose handler threw isn't delivered: the position stays before
            // it, so the next recovery delivers it again.
            if (this._centrifuge._handlerFailures !== failures) {
                return;
            }
            this._setPublicationPosition(pub);
        }
    }
    _setPublicationPosition(pub) {
        // Shared poll: the version of a key still tracked, which a replay of the tracked
        // keys asks from. A publication handler may have untracked it.
        if (this._sharedPoll && pub.key && this._sharedPollTrackedItems.has(pub.key)) {
            if (pub.removed) {
                this._sharedPollTrackedItems.delete(pub.key);
            }
            else if (pub.version) {
                this._sharedPollTrackedItems.set(pub.key, toOffset(pub.version));
            }
        }
        if (hasOffset(pub.offset)) {
            this._offset = toOffset(pub.offset);
        }
        if (pub.epoch) {
            this._epoch = pub.epoch;
        }
    }
    /** Seed per-key delta tracking from state/stream entries.
     * Handles JSON-escaped data (server-side delta escaping) and protobuf data.
     * Decodes escaped data back to original format for user consumption.
     * Values are escaped only when delta is negotiated: otherwise they come as
     * they are, and a string value must not be parsed. */
    _seedDeltaTracking(pub, deltaNegotiated) {
        if (!this._delta || !pub.key)
            return;
        if (pub.removed) {
            // A removal carries no payload to decode, and ends the key's delta chain.
            this._prevValueMap.delete(pub.key);
            return;
        }
        if (!deltaNegotiated) {
            this._prevValueMap.set(pub.key, pub.data);
            return;
        }
        if (typeof pub.data === 'string') {
            // JSON transport with server-side delta escaping.
            // Store raw bytes for delta, decode for user.
            const rawBytes = pub.data;
            const encoded = new TextEncoder().encode(rawBytes);
            this._prevValueMap.set(pub.key, encoded);
            // Count as full payload in delta stats. Use the UTF-8 byte length, not
            // rawBytes.length (JS string length counts UTF-16 code units, which
            // undercounts any non-ASCII content).
            const byteLen = encoded.length;
            this._deltaNumPubs++;
            this._deltaNumFull++;
            this._deltaBytesReceived += byteLen;
            this._deltaBytesDecoded += byteLen;
            pub.data = JSON.parse(rawBytes);
        }
        else if (pub.data instanceof Uint8Array) {
            // Protobuf transport.
            this._prevValueMap.set(pub.key, pub.data);
            // Count as full payload in delta stats.
            const byteLen = pub.data.length;
            this._deltaNumPubs++;
            this._deltaNumFull++;
            this._deltaBytesReceived += byteLen;
            this._deltaBytesDecoded += byteLen;
        }
    }
    _handleJoin(join) {
        // @ts-ignore – we are hiding some methods from public API autocompletion.
        const info = this._centrifuge._getJoinLeaveContext(join.info);
        this.emit('join', { channel: this.channel, info: info });
    }
    _handleLeave(leave) {
        // @ts-ignore – we are hiding some methods from public API autocompletion.
        const info = this._centrifuge._getJoinLeaveContext(leave.info);
        this.emit('leave', { channel: this.channel, info: info });
    }
    _resolvePromises() {
        for (const id in this._promises) {
            if (!this._promises.hasOwnProperty(id)) {
                continue;
            }
            if (this._promises[id].timeout) {
                clearTimeout(this._promises[id].timeout);
            }
            this._promises[id].resolve();
            delete this._promises[id];
        }
    }
    _rejectPromises(err) {
        for (const id in this._promises) {
            if (!this._promises.hasOwnProperty(id)) {
                continue;
            }
            if (this._promises[id].timeout) {
                clearTimeout(this._promises[id].timeout);
            }
            this._promises[id].reject(err);
            delete this._promises[id];
        }
    }
    _scheduleResubscribe() {
        if (!this._isSubscribing()) {
            this._debug('not in subscribing state, skip resubscribe scheduling', this.channel);
            return;
        }
        const self = this;
        const delay = this._getResubscribeDelay();
        // One timer at a time: a timer left armed would fire later, out of the
        // backoff, and send a subscribe the emulation waits don't cover.
        this._clearResubscribeTimeout();
        this._resubscribeTimeout = setTimeout(function () {
            self._resubscribeTimeout = null;
            if (self._isSubscribing()) {
                self._subscribe();
            }
        }, delay);
        this._debug('resubscribe scheduled after ' + delay, this.channel);
    }
    // Emits an error event, then runs the continuation: not when a handler unsubscribed,
    // maybe to subscribe again, whose new subscribe the continuation must not touch.
    _emitError(ctx, continuation) {
        const flow = this._subscribeFlow;
        try {
            this.emit('error', ctx);
        }
        finally {
            if (flow === this._subscribeFlow) {
                continuation();
            }
        }
    }
    _subscribeError(err) {
        if (!this._isSubscribing()) {
            return;
        }
        if (err.code === 109 && this._getToken === null) {
            // The token expired and there is no getToken to get another one: like a
            // connection, unauthorized (instead of subscribing again without a token).
            try {
                this.emit('error', {
                    type: 'configuration',
                    channel: this.channel,
                    error: {
                        code: errorCodes.badConfiguration,
                        message: 'subscription token expired but no getToken function set'
                    }
                });
            }
            catch (e) {
                // @ts-ignore – we are hiding some symbols from public API autocompletion.
                this._centrifuge._reportDispatchError(e);
            }
            this._setUnsubscribed(unsubscribedCodes.unauthorized, 'unauthorized', false);
            return;
        }
        if (err.code < 100 || err.code === 109 || err.temporary === true) {
            if (err.code === 109) { // Token expired error.
                this._token = '';
            }
            const errContext = {
                channel: this.channel,
                type: 'subscribe',
                error: err
            };
            if (this._centrifuge.state === State.Connected) {
                this._emitError(errContext, () => this._scheduleResubscribe());
            }
            else {
                this._scheduleResubscribe();
            }
        }
        else {
            this._setUnsubscribed(err.code, err.message, false);
        }
    }
    _getResubscribeDelay() {
        const delay = backoff(this._resubscribeAttempts, this._minResubscribeDelay, this._maxResubscribeDelay);
        this._resubscribeAttempts++;
        return delay;
    }
    _setOptions(options) {
        if (!options) {
            return;
        }
        if (options.since) {
            this._offset = toOffset(options.since.offset);
            this._epoch = options.since.epoch || '';
            this._recover = true;
        }
        if (options.data) {
            this._data = options.data;
        }
        if (options.getData) {
            this._getData = options.getData;
        }
        if (options.minResubscribeDelay !== undefined) {
            this._minResubscribeDelay = options.minResubscribeDelay;
        }
        if (options.maxResubscribeDelay !== undefined) {
            this._maxResubscribeDelay = options.maxResubscribeDelay;
        }
        if (options.token) {
            this._token = options.token;
        }
        if (options.getToken) {
            this._getToken = options.getToken;
        }
        if (options.positioned === true) {
            this._positioned = true;
        }
        if (options.recoverable === true) {
            this._recoverable = true;
        }
        if (options.joinLeave === true) {
            this._joinLeave = true;
        }
        if (options.delta) {
            if (options.delta !== 'fossil') {
                throw new Error('unsupported delta format');
            }
            this._delta = options.delta;
        }
        if (options.tagsFilter) {
            this._tagsFilter = options.tagsFilter;
        }
        if (this._tagsFilter && this._delta) {
            throw new Error('cannot use delta and tagsFilter together');
        }
        // Stream getState option
        if (options.getState) {
            this._getState = options.getState;
            this._recover = true; // getState implies recovery
        }
        // Map subscription options
        if (options.map === true) {
            this._map = true;
        }
        if (options.mapPageSize !== undefined) {
            this._mapPageSize = options.mapPageSize;
        }
        // Presence type for presence subscriptions (2=clients, 3=users)
        if (options.mapPresenceType !== undefined) {
            this._mapPresenceType = options.mapPresenceType;
            this._map = true; // Presence subscriptions are always map subscriptions
        }
        if (options.mapUnrecoverableStrategy) {
            this._mapUnrecoverableStrategy = options.mapUnrecoverableStrategy;
        }
        // Shared poll subscription options
        if (options.sharedPoll === true) {
            this._sharedPoll = true;
        }
        if (options.sharedPollGetSignature) {
            this._sharedPollGetSignature = options.sharedPollGetSignature;
        }
    }
    _getOffset() {
        // A publication being dispatched counts as delivered: a subscribe command built
        // from its handler recovers after it, while the stored position still holds the
        // previous one until that handler returned (see _handlePublication).
        if (this._pendingOffset !== null) {
            return this._pendingOffset;
        }
        const offset = this._offset;
        if (offset !== null) {
            return offset;
        }
        return 0;
    }
    _getEpoch() {
        const epoch = this._epoch;
        if (epoch !== null) {
            return epoch;
        }
        return '';
    }
    _clearRefreshTimeout() {
        if (this._refreshTimeout !== null) {
            clearTimeout(this._refreshTimeout);
            this._refreshTimeout = null;
        }
    }
    _clearResubscribeTimeout() {
        if (this._resubscribeTimeout !== null) {
            clearTimeout(this._resubscribeTimeout);
            this._resubscribeTimeout = null;
        }
    }
    _getSubscriptionToken() {
        this._debug('get subscription token for channel', this.channel);
        const ctx = {
            channel: this.channel
        };
        const getToken = this._getToken;
        if (getToken === null) {
            try {
                this.emit('error', {
                    type: 'configuration',
                    channel: this.channel,
                    error: {
                        code: errorCodes.badConfiguration,
                        message: 'provide a function to get channel subscription token'
                    }
                });
            }
            catch (e) {
                // The subscribe must fail as unauthorized all the same, not stay in progress.
                // @ts-ignore – we are hiding some symbols from public API autocompletion.
                this._centrifuge._reportDispatchError(e);
            }
            return Promise.reject(new UnauthorizedError(''));
        }
        return this._callAsync(() => getToken(ctx));
    }
    _refresh() {
        this._clearRefreshTimeout();
        const self = this;
        // The subscription may end while the token is loading, and a new one start, e.g.
        // after unsubscribe() or a reconnect: this refresh is outdated then.
        const generation = this._refreshGeneration;
        this._getSubscriptionToken().then(function (token) {
            if (generation !== self._refreshGeneration || !self._isSubscribed()) {
                return;
            }
            if (!token) {
                self._failUnauthorized();
                return;
            }
            self._token = token;
            const req = {
                channel: self.channel,
                token: token
            };
            const msg = {
                'sub_refresh': req
            };
            // @ts-ignore – we are hiding some symbols from public API autocompletion.
            self._centrifuge._call(msg).then(resolveCtx => {
                try {
                    self._refreshResponse(resolveCtx.reply.sub_refresh);
                }
                catch (err) {
                    // @ts-ignore – we are hiding some symbols from public API autocompletion.
                    self._centrifuge._dispatchFailed(err);
                }
                finally {
                    if (resolveCtx.next) {
                        resolveCtx.next();
                    }
                }
            }, rejectCtx => {
                try {
                    self._refreshError(rejectCtx.error);
                }
                catch (err) {
                    // @ts-ignore – we are hiding some symbols from public API autocompletion.
                    self._centrifuge._rejectionFailed(err, rejectCtx);
                }
                finally {
                    if (rejectCtx.next) {
                        rejectCtx.next();
                    }
                }
            });
        }).catch(function (e) {
            if (generation !== self._refreshGeneration || !self._isSubscribed()) {
                return;
            }
            if (e instanceof UnauthorizedError) {
                self._failUnauthorized();
                return;
            }
            self._emitError({
                type: 'refreshToken',
                channel: self.channel,
                error: {
                    code: errorCodes.subscriptionRefreshToken,
                    message: e !== undefined ? e.toString() : ''
                }
            }, () => {
                // A handler may have ended the subscription, e.g. by disconnecting the client.
                if (generation !== self._refreshGeneration || !self._isSubscribed()) {
                    return;
                }
                self._refreshTimeout = setTimeout(() => self._refresh(), self._getRefreshRetryDelay());
            });
        });
    }
    _refreshResponse(result) {
        if (!this._isSubscribed()) {
            return;
        }
        this._debug('subscription token refreshed, channel', this.channel);
        this._clearRefreshTimeout();
        if (result.expires === true) {
            this._refreshTimeout = setTimeout(() => this._refresh(), ttlMilliseconds(result.ttl));
        }
    }
    _refreshError(err) {
        if (!this._isSubscribed()) {
            return;
        }
        if (err.code < 100 || err.temporary === true) {
            this._emitError({
                type: 'refresh',
                channel: this.channel,
                error: err
            }, () => {
                // A handler may have ended the subscription, e.g. by disconnecting the client.
                if (!this._isSubscribed()) {
                    return;
                }
                this._refreshTimeout = setTimeout(() => this._refresh(), this._getRefreshRetryDelay());
            });
        }
        else {
            this._setUnsubscribed(err.code, err.message, true);
        }
    }
    _getRefreshRetryDelay() {
        return backoff(0, 10000, 20000);
    }
    // Calls an app callback expected to return a promise: one throwing instead of
    // returning a rejected promise fails the same way, not by throwing out of the
    // subscribe or refresh in progress.
    _callAsync(callback) {
        try {
            return Promise.resolve(callback());
        }
        catch (e) {
            return Promise.reject(e);
        }
    }
    _failUnauthorized() {
        this._setUnsubscribed(unsubscribedCodes.unauthorized, 'unauthorized', true);
    }
    // ============ Shared Poll Internal Helpers ============
    // Send ONE or MORE signature batches in a single sub_refresh frame.
    // Splits across frames when the estimated payload exceeds the wire frame
    // budget — keeps each request well under the 64k Centrifugo frame limit.
    _sendTrackRequest(batches, untrackKeys) {
        if (batches.length === 0)
            return Promise.resolve();
        // Estimate ~80 bytes per signature + ~40 bytes per item (key + varint + framing).
        // ~60KB budget leaves headroom for envelope, channel name, and reply.
        const maxBytes = 60000;
        const frames = [];
        let current = [];
        // Reserve space for inline untrack keys in the first frame.
        let currentBytes = 100; // envelope baseline
        if (untrackKeys && untrackKeys.length > 0) {
            for (const key of untrackKeys)
                currentBytes += key.length + 4;
        }
        for (const b of batches) {
            let cost = 100;
            for (const it of b.items)
                cost += it.key.length + 16;
            if (current.length > 0 && currentBytes + cost > maxBytes) {
                frames.push(current);
                current = [];
                currentBytes = 100;
            }
            current.push(b);
            currentBytes += cost;
        }
        if (current.length > 0)
            frames.push(current);
        // A failing frame stops the frames after it: a permanent error untracks the
        // keys of all of them.
        const keysFrom = (idx) => frames.slice(idx).flatMap(f => f.flatMap(b => b.items.map(i => i.key)));
        const send = (frame, idx, frameUntrackKeys) => new Promise((resolve, reject) => {
            const req = {
                channel: this.channel,
                type: 1,
                track: frame.map(b => ({
                    signature: b.signature,
                    items: b.items.map(i => i.version > 0 ? i : { key: i.key }),
                })),
            };
            if (frameUntrackKeys && frameUntrackKeys.length > 0) {
                req.untrack = frameUntrackKeys;
            }
            const msg = { 'sub_refresh': req };
            // @ts-ignore – we are hiding some symbols from public API autocompletion.
            this._centrifuge._call(msg).then(resolveCtx => {
                try {
                    this._handleTrackResponse(resolveCtx.reply.sub_refresh, frame.flatMap(b => b.items.map(i => i.key)), frameUntrackKeys);
                }
                catch (err) {
                    // @ts-ignore – we are hiding some symbols from public API autocompletion.
                    this._centrifuge._dispatchFailed(err);
                }
                finally {
                    if (resolveCtx.next)
                        resolveCtx.next();
                }
                resolve();
            }, rejectCtx => {
                if (rejectCtx.next)
                    rejectCtx.next();
                this._sharedPollRequestFailed(rejectCtx.error);
                // With the keys of the request, which a permanent error untracks.
                reject({ error: rejectCtx.error, keys: keysFrom(idx) });
            });
        });
        // Sequential dispatch: a frame failure stops further frames so the SDK
        // doesn't end up with some frames committed server-side and others not
        // — which would otherwise lead to retry-with-duplicate-publications.
        // Inline untrack keys go only in the first frame.
        return this._sharedPollSerial(() => frames.reduce((chain, frame, idx) => chain.then(() => send(frame, idx, idx === 0 ? untrackKeys : undefined)), Promise.resolve()));
    }
    _isEmulation() {
        // @ts-ignore – we are hiding some symbols from public API autocompletion.
        const transport = this._centrifuge._transport;
        return !!transport && transport.emulation();
    }
    // Over emulation each request is a separate HTTP request the server may handle
    // in any order: a track and an untrack of a key could overtake each other. The
    // channel's requests go one at a time then, in the order made; one made for a
    // subscription that has ended by its turn is dropped.
    _sharedPollSerial(send) {
        if (!this._isEmulation()) {
            return send();
        }
        const generation = this._refreshGeneration;
        const run = this._sharedPollQueue.then(() => {
            if (generation !== this._refreshGeneration || !this._isSubscribed()) {
                return;
            }
            return send();
        });
        this._sharedPollQueue = run.then(() => undefined, () => undefined);
        return run;
    }
    // A timed-out request over emulation may still reach the server after later
    // ones: whether the keys are tracked is unknown, the client reconnects.
    _sharedPollRequestFailed(error) {
        if (error && error.code === errorCodes.timeout && this._isEmulation()) {
            // @ts-ignore – we are hiding some symbols from public API autocompletion.
            this._centrifuge._disconnect(connectingCodes.subscribeTimeout, 'shared poll request timeout', true);
        }
    }
    _sendUntrackRequest(keys) {
        return this._sharedPollSerial(() => new Promise((resolve, reject) => {
            const req = {
                channel: this.channel,
                type: 2,
                untrack: keys,
            };
            const msg = { 'sub_refresh': req };
            // @ts-ignore – we are hiding some symbols from public API autocompletion.
            this._centrifuge._call(msg).then(resolveCtx => {
                if (resolveCtx.next) {
                    resolveCtx.next();
                }
                resolve();
            }, rejectCtx => {
                if (rejectCtx.next) {
                    rejectCtx.next();
                }
                this._sharedPollRequestFailed(rejectCtx.error);
                reject(rejectCtx.error);
            });
        }));
    }
    _handleTrackResponse(result, keys, untrackKeys) {
        // The reply to a track sent before unsubscribe() belongs to that subscription:
        // its items and versions must not reach the next one.
        if (!this._isSubscribed()) {
            return;
        }
        // Track succeeded — reset retry state.
        this._clearSharedPollTrackRetry();
        // Process cached items from server (publications across all batches in the request).
        if (result && result.items && result.items.length > 0) {
            for (const pub of result.items) {
                // A handler may have unsubscribed or disconnected: the rest must neither be
                // delivered nor move the tracked versions.
                if (!this._isSubscribed()) {
                    return;
                }
                this._handlePublication(pub);
            }
        }
        if (!this._isSubscribed()) {
            return;
        }
        // Keys the request tracked at the server which the client no longer tracks,
        // e.g. removed by the server while the request was in flight: the server
        // would keep tracking them, untracked there too.
        const untracked = new Set(untrackKeys || []);
        const stale = keys.filter(key => !untracked.has(key) && !this._sharedPollTrackedItems.has(key));
        if (stale.length > 0) {
            this._sendUntrackRequest(stale).catch(err => {
                this.emit('error', { type: 'untrack', channel: this.channel, error: err });
            });
        }
        // Server returns MIN ttl across all batches in this request. Keep the
        // EARLIEST deadline received across all responses as the refresh target.
        // Refreshing too early is harmless (cheap getSignature call); refreshing
        // too late risks 109 errors mid-replay, so we err earlier.
        if (result && result.expires === true) {
            // Without a positive ttl a signature has expired already, still accepted within
            // the server's grace period: refresh it soon, or the server drops the keys
            // silently. Not at once, in case the backend keeps returning expired ones.
            const targetMs = Date.now() + (result.ttl > 0 ? result.ttl * 1000 : 1000);
            this._maybeScheduleSharedPollSignatureRefresh(targetMs);
        }
    }
    // Reschedule the consolidating refresh timer if `targetMs` is earlier than
    // the currently scheduled target. No-op when a sooner refresh is already
    // pending. Pass null to clear and reset (e.g. after consolidation succeeded).
    _maybeScheduleSharedPollSignatureRefresh(targetMs) {
        if (targetMs === null) {
            this._sharedPollSignatureRefreshTargetMs = null;
            this._clearSharedPollSignatureRefresh();
            return;
        }
        if (!this._isSubscribed())
            return;
        if (this._sharedPollSignatureRefreshTargetMs !== null &&
            targetMs >= this._sharedPollSignatureRefreshTargetMs) {
            return; // existing timer fires sooner
        }
        this._sharedPollSignatureRefreshTargetMs = targetMs;
        this._clearSharedPollSignatureRefresh();
        this._sharedPollSignatureRefreshTimeout = setTimeout(() => this._sharedPollRefreshSignature(), Math.max(0, targetMs - Date.now()));
    }
    _clearSharedPollSignatureRefresh() {
        if (this._sharedPollSignatureRefreshTimeout !== null) {
            clearTimeout(this._sharedPollSignatureRefreshTimeout);
            this._sharedPollSignatureRefreshTimeout = null;
        }
        this._sharedPollSignatureRefreshAttempts = 0;
        // Do not clear the target here — _maybeScheduleSharedPollSignatureRefresh
        // owns target lifecycle. This helper only stops the timer and resets
        // backoff so the next reschedule starts fresh.
    }
    _clearSharedPollTrackRetry() {
        if (this._sharedPollTrackRetryTimeout !== null) {
            clearTimeout(this._sharedPollTrackRetryTimeout);
            this._sharedPollTrackRetryTimeout = null;
        }
        this._sharedPollTrackRetryAttempts = 0;
    }
    _scheduleSharedPollReplayRetry() {
        if (this._sharedPollReplayRetryTimeout !== null) {
            clearTimeout(this._sharedPollReplayRetryTimeout);
        }
        this._sharedPollReplayRetryTimeout = setTimeout(() => this._sharedPollReplayTrack(), backoff(this._sharedPollReplayRetryAttempts++, 5000, 30000));
    }
    _clearSharedPollReplayRetry() {
        if (this._sharedPollReplayRetryTimeout !== null) {
            clearTimeout(this._sharedPollReplayRetryTimeout);
            this._sharedPollReplayRetryTimeout = null;
        }
        this._sharedPollReplayRetryAttempts = 0;
    }
    // Adds a signature to the library, dropping the entries whose keys it covers
    // entirely: they may have expired, and a replay sends every entry in one request,
    // which a single expired signature fails as a whole.
    _addSharedPollSignature(keys, signature) {
        const covered = new Set(keys);
        this._sharedPollSignatures = this._sharedPollSignatures.filter(entry => !entry.keys.every(key => covered.has(key)));
        this._sharedPollSignatures.push({ keys, signature });
    }
    _handleTrackError(err, keys) {
        if (!this._isSubscribed()) {
            return;
        }
        this._emitError({
            type: 'track',
            channel: this.channel,
            error: err,
        }, () => {
            // A handler may have ended the subscription, e.g. by disconnecting the client.
            if (!this._isSubscribed()) {
                return;
            }
            // Error 109 (token expired) on a track command means the signature has
            // expired past the server's grace period. Trigger a refresh — getSignature
            // will issue a fresh consolidated signature that replaces stale ones.
            // The in-flight guard inside _sharedPollRefreshSignature prevents
            // duplicate refresh calls when multiple track retries all hit 109.
            if (err.code === 109) {
                this._sharedPollRefreshSignature();
                return;
            }
            if (err.code < 100 || err.temporary === true) {
                // Temporary error — retry full track replay with backoff.
                this._sharedPollTrackRetryTimeout = setTimeout(() => this._sharedPollReplayTrack(), backoff(this._sharedPollTrackRetryAttempts++, 1000, 15000));
                return;
            }
            // A permanent error, e.g. limit exceeded or permission denied: retrying
            // fails the same way. The keys are untracked like revoked ones, also at
            // the server: an earlier request (e.g. one that timed out) may have
            // tracked them.
            this._untrackFailedKeys(keys);
        });
    }
    _untrackFailedKeys(keys) {
        const failed = keys.filter(key => this._sharedPollTrackedItems.has(key));
        if (failed.length === 0) {
            return;
        }
        for (const key of failed) {
            this._sharedPollTrackedItems.delete(key);
        }
        this._sharedPollSignatures = this._sharedPollSignatures.filter(entry => entry.keys.some(k => this._sharedPollTrackedItems.has(k)));
        this._sendUntrackRequest(failed).catch(err => {
            this.emit('error', { type: 'untrack', channel: this.channel, error: err });
        });
        for (const key of failed) {
            // A handler of an earlier removal may have ended the subscription.
            if (!this._isSubscribed()) {
                return;
            }
            this.emit('update', {
                channel: this.channel,
                key: key,
                data: null,
                removed: true,
            });
        }
    }
    // _sharedPollRefreshSignature obtains a fresh consolidated signature
    // covering all currently tracked keys, then replaces the library with the
    // single new entry. Triggered by the TTL timer (server's `expires/ttl`
    // response) and by 109 errors on track commands. The in-flight guard
    // collapses concurrent refresh attempts into one.
    _sharedPollRefreshSignature() {
        this._clearSharedPollSignatureRefresh();
        if (!this._isSubscribed())
            return;
        if (!this._sharedPollGetSignature)
            return;
        if (this._sharedPollTrackedItems.size === 0)
            return;
        if (this._sharedPollSignatureRefreshInFlight) {
            for (const key of this._sharedPollTrackedItems.keys()) {
                if (!this._sharedPollSignatureRefreshKeys.has(key)) {
                    this._sharedPollSignatureRefreshAgain = true;
                    break;
                }
            }
            return;
        }
        // Reset the global refresh target — the timer that pointed at this
        // moment has already fired, and the in-flight refresh will publish a
        // fresh deadline via the consolidated track response. Resetting here
        // (not after consolidation success) lets any concurrent track() call
        // that lands during getSignature still set a tighter target if its
        // signature is shorter-lived than the consolidated one.
        this._sharedPollSignatureRefreshTargetMs = null;
        this._sharedPollSignatureRefreshInFlight = true;
        const keys = Array.from(this._sharedPollTrackedItems.keys());
        this._sharedPollSignatureRefreshKeys = new Set(keys);
        const self = this;
        // A subscription ending meanwhile resets the in-flight guard for its next period.
        const generation = this._refreshGeneration;
        this._callAsync(() => this._sharedPollGetSignature({ keys })).then(result => {
            if (generation !== self._refreshGeneration)
                return;
            self._sharedPollSignatureRefreshInFlight = false;
            if (!self._isSubscribed())
                return;
            self._sharedPollSignatureRefreshAttempts = 0;
            if (self._sharedPollSignatureRefreshAgain) {
                self._sharedPollSignatureRefreshAgain = false;
                // After this refresh's track request is sent below.
                Promise.resolve().then(() => self._sharedPollRefreshSignature());
            }
            // Handle revoked keys (keys not in the returned set).
            const returnedKeys = new Set(result.keys);
            const revokedKeys = [];
            for (const key of keys) {
                if (!returnedKeys.has(key) && this._sharedPollTrackedItems.has(key)) {
                    self._sharedPollTrackedItems.delete(key);
                    revokedKeys.push(key);
                    // A handler of an earlier removal may have ended the subscription: the
                    // keys are still untracked below, but nothing more is delivered.
                    if (!self._isSubscribed()) {
                        continue;
                    }
                    self.emit('update', {
                        channel: self.channel,
                        key: key,
                        data: null,
                        removed: true,
                    });
                }
            }
            // Tell the server to stop tracking revoked keys — otherwise the server
            // keeps broadcasting them and the SDK silently drops the publications.
            if (revokedKeys.length > 0) {
                self._sendUntrackRequest(revokedKeys).catch(err => {
                    self.emit('error', { type: 'untrack', channel: self.channel, error: err });
                });
            }
            // Re-track only keys covered by the returned signature.
            const items = [];
            for (const key of result.keys) {
                const version = self._sharedPollTrackedItems.get(key);
                if (version !== undefined) {
                    items.push({ key, version });
                }
            }
            // Replace the signature library with the consolidated entry. Keep
            // any entries that cover keys NOT in the consolidation — those keys
            // may have been added via a concurrent track() while getSignature was
            // in flight and their signatures must remain available for reconnect.
            const consolidatedKeySet = new Set(result.keys);
            const uncovered = self._sharedPollSignatures.filter(entry => entry.keys.some(k => self._sharedPollTrackedItems.has(k) && !consolidatedKeySet.has(k)));
            // Target was already reset at refresh start; any concurrent track()
            // during getSignature has set its own target if its TTL was tighter.
            // The consolidated track response below will set a target unless
            // something earlier is already in place.
            self._sharedPollSignatures = items.length > 0
                ? [{ keys: result.keys, signature: result.signature }, ...uncovered]
                : uncovered;
            if (items.length === 0)
                return;
            self._sendTrackRequest([{ items, signature: result.signature }]).catch(e => {
                self._handleTrackError(e.error, e.keys);
            });
        }).catch(e => {
            if (generation !== self._refreshGeneration)
                return;
            self._sharedPollSignatureRefreshInFlight = false;
            // The retry below covers it.
            self._sharedPollSignatureRefreshAgain = false;
            self._emitError({
                type: 'signatureRefresh',
                channel: self.channel,
                error: {
                    code: errorCodes.sharedPollGetSignature,
                    message: e !== undefined ? e.toString() : ''
                }
            }, () => {
                // A handler may have ended the subscription, e.g. by disconnecting the client.
                if (generation !== self._refreshGeneration || !self._isSubscribed()) {
                    return;
                }
                // Retry after delay with exponential backoff.
                self._sharedPollSignatureRefreshTimeout = setTimeout(() => self._sharedPollRefreshSignature(), backoff(self._sharedPollSignatureRefreshAttempts++, 5000, 30000));
            });
        });
    }
    // _sharedPollReplayTrack runs after subscribe completes — on initial
    // subscribe AND after every reconnect. It reuses every cached signature
    // in _sharedPollSignatures so that mass reconnects don't trigger mass
    // getSignature calls on the application backend.
    //
    // For each cached batch:
    //   - Build a track command with the batch's ORIGINAL key set (HMAC was
    //     signed over those keys, so the full set must be sent). Versions are
    //     CURRENT per-connection versions, so the server pushes only what's
    //     changed.
    //   - Any keys in the batch that were locally untracked() since the original
    //     track() are sent in the same frame's `untrack` field — the server
    //     validates the full HMAC then removes them immediately, avoiding a
    //     separate round-trip.
    //
    // getSignature is invoked only when there are no cached signatures (e.g.
    // initial subscribe where track(keys) was called without explicit sig).
    // Once a signature is expired beyond the server's grace period, the next
    // track command returns error 109 — _handleTrackError then triggers
    // _sharedPollRefreshSignature for a fresh consolidated signature.
    _sharedPollReplayTrack() {
        if (!this._isSubscribed())
            return;
        if (this._sharedPollTrackedItems.size === 0 && this._sharedPollSignatures.length === 0)
            return;
        // Phase 1: replay every cached signature batch in a SINGLE sub_refresh
        // frame (multi-batch wire format). The server validates each batch's
        // HMAC independently and merges the response. All-or-nothing semantics:
        // one failed signature → the whole replay fails and _handleTrackError
        // drives a consolidating refresh.
        //
        // After this block `coveredKeys` is the set of currently-tracked keys
        // that already have a signature in the library — any tracked key not
        // in this set needs a fresh getSignature in Phase 2.
        const coveredKeys = new Set();
        const replayBatches = [];
        const allUntrackedInReplay = [];
        for (const entry of this._sharedPollSignatures) {
            // Items: ORIGINAL key set + current per-connection versions. Keys that
            // were untracked locally still go in items (HMAC needs the full batch);
            // a single chained untrack runs after the multi-batch track resolves
            // to converge server-side state.
            const items = entry.keys.map(key => {
                var _a;
                return ({
                    key,
                    version: (_a = this._sharedPollTrackedItems.get(key)) !== null && _a !== void 0 ? _a : 0,
                });
            });
            replayBatches.push({ items, signature: entry.signature });
            for (const k of entry.keys) {
                if (this._sharedPollTrackedItems.has(k)) {
                    coveredKeys.add(k);
                }
                else {
                    allUntrackedInReplay.push(k);
                }
            }
        }
        if (replayBatches.length > 0) {
            // Pass untracked keys inline — server validates HMAC over the full batch
            // then immediately removes the stale keys in the same handler, eliminating
            // the previous two-round-trip track→untrack sequence.
            this._sendTrackRequest(replayBatches, allUntrackedInReplay).catch(e => {
                this._handleTrackError(e.error, e.keys);
            });
        }
        // Phase 2: any tracked items NOT covered by a cached signature need
        // a fresh getSignature. This handles two cases:
        //   - initial subscribe where track(keys) was called without explicit
        //     sig (library starts empty, all keys uncovered);
        //   - mixed track(keys) + track(items, sig) before subscribe — the
        //     explicit batch sits in the library, but auto-tracked keys still
        //     need a signature.
        const uncoveredKeys = [];
        for (const key of this._sharedPollTrackedItems.keys()) {
            if (!coveredKeys.has(key))
                uncoveredKeys.push(key);
        }
        if (uncoveredKeys.length === 0)
            return;
        if (!this._sharedPollGetSignature) {
            this.emit('error', {
                type: 'track',
                channel: this.channel,
                error: { code: errorCodes.sharedPollGetSignature, message: 'getSignature callback required for tracked keys without an explicit signature' },
            });
            return;
        }
        const self = this;
        const generation = this._refreshGeneration;
        this._callAsync(() => this._sharedPollGetSignature({ keys: uncoveredKeys })).then(result => {
            // The subscription ended meanwhile, e.g. by a reconnect: its replay asks again.
            if (generation !== self._refreshGeneration || !self._isSubscribed())
                return;
            self._clearSharedPollReplayRetry();
            // Handle revoked keys (keys we asked about that the backend didn't authorize).
            const returnedKeys = new Set(result.keys);
            const revokedKeys = [];
            for (const key of uncoveredKeys) {
                if (!returnedKeys.has(key) && this._sharedPollTrackedItems.has(key)) {
                    self._sharedPollTrackedItems.delete(key);
                    revokedKeys.push(key);
                    // A handler of an earlier removal may have ended the subscription: the
                    // keys are still untracked below, but nothing more is delivered.
                    if (!self._isSubscribed()) {
                        continue;
                    }
                    self.emit('update', {
                        channel: self.channel,
                        key: key,
                        data: null,
                        removed: true,
                    });
                }
            }
            if (revokedKeys.length > 0) {
                self._sendUntrackRequest(revokedKeys).catch(err => {
                    self.emit('error', { type: 'untrack', channel: self.channel, error: err });
                });
            }
            const items = [];
            for (const key of result.keys) {
                const version = self._sharedPollTrackedItems.get(key);
                if (version !== undefined) {
                    items.push({ key, version });
                }
            }
            if (items.length === 0)
                return;
            // Cache the obtained signature for subsequent reconnect replays.
            self._addSharedPollSignature(result.keys, result.signature);
            self._sendTrackRequest([{ items, signature: result.signature }]).catch(e => {
                self._handleTrackError(e.error, e.keys);
            });
        }).catch(e => {
            if (generation !== self._refreshGeneration || !self._isSubscribed())
                return;
            self._emitError({
                type: 'signatureRefresh',
                channel: self.channel,
                error: {
                    code: errorCodes.sharedPollGetSignature,
                    message: e !== undefined ? e.toString() : ''
                }
            }, () => {
                // A handler may have ended the subscription, e.g. by disconnecting the client.
                if (generation !== self._refreshGeneration || !self._isSubscribed())
                    return;
                // Replay-getSignature retry uses its OWN backoff state — separate from
                // the refresh timer so a stuck replay can't delay the next TTL refresh.
                self._sharedPollReplayRetryTimeout = setTimeout(() => self._sharedPollReplayTrack(), backoff(self._sharedPollReplayRetryAttempts++, 5000, 30000));
            });
        });
    }
    // ============ Keyed Subscription Methods ============
    /** Entry point for map subscriptions */
    _mapSubscribe() {
        this._debug('starting map subscribe on', this.channel);
        const flow = ++this._subscribeFlow;
        // Decided when the first request goes, after the token if one is needed: the
        // position may be reset meanwhile (state invalidation, setTagsFilter).
        const start = () => {
            // Initialize buffers and phase
            this._mapStateBuffer = [];
            this._mapStreamBuffer = [];
            this._mapCursor = '';
            // If we have a position from `since`, we may skip snapshot and go to stream
            const recovering = this._recover && this._offset !== null && this._epoch !== null;
            // Preserve _prevValueMap when recovering — the server will send deltas
            // against the values the client already has from the previous session.
            // Only clear when starting from scratch (no recovery position).
            if (!recovering) {
                this._prevValueMap = new Map();
            }
            this._mapFlowRecovering = recovering;
            this._mapFlowOffset = recovering ? this._offset : 0;
            this._mapFlowEpoch = recovering ? this._epoch : null;
            this._mapFlowPositionResets = this._mapPositionResets;
            this._mapPhase = MapPhase.State;
            if (recovering) {
                this._debug('map subscribe: recovering from position, skipping to stream phase');
                this._mapPhase = MapPhase.Stream;
                this._fetchStream(flow);
            }
            else {
                this._fetchSnapshot(flow);
            }
        };
        // Get token if needed, then start fetching. Also when recovering: the token
        // may have been cleared, e.g. after it expired.
        if (this._canSubscribeWithoutGettingToken()) {
            start();
        }
        else {
            this._getSubscriptionToken()
                .then(token => {
                // A later flow owns the subscription now.
                if (flow !== this._subscribeFlow) {
                    return;
                }
                if (!this._isSubscribing()) {
                    this._inflight = false;
                    return;
                }
                if (!token) {
                    this._inflight = false;
                    this._failUnauthorized();
                    return;
                }
                this._token = token;
                start();
            })
                .catch(e => {
                this._handleTokenError(e, flow);
            });
        }
    }
    /** Fetch a page of snapshot data */
    _fetchSnapshot(flow, cursor) {
        if (!this._isSubscribing() || !this._isTransportOpen()) {
            this._inflight = false;
            return;
        }
        const cmd = this._buildMapSubscribeCommand(MapPhase.State, cursor);
        this._debug('map subscribe: fetching snapshot page', cursor ? `cursor=${cursor}` : 'initial');
        this._subscribeCallFlow = flow;
        // @ts-ignore – we are hiding some symbols from public API autocompletion.
        this._centrifuge._call(cmd).then(resolveCtx => {
            try {
                if (this._settleSubscribeCall(flow, true)) {
                    return;
                }
                // The reply to a page of an earlier flow is outdated.
                if (flow === this._subscribeFlow) {
                    this._handleMapStateResponse(flow, resolveCtx.reply.subscribe);
                }
            }
            catch (err) {
                // @ts-ignore – we are hiding some symbols from public API autocompletion.
                this._centrifuge._dispatchFailed(err);
            }
            finally {
                if (resolveCtx.next) {
                    resolveCtx.next();
                }
            }
        }, rejectCtx => {
            try {
                if (this._settleSubscribeCall(flow, false, rejectCtx.error)) {
                    return;
                }
                if (flow === this._subscribeFlow) {
                    this._handleMapSubscribeError(rejectCtx.error);
                }
            }
            catch (err) {
                // @ts-ignore – we are hiding some symbols from public API autocompletion.
                this._centrifuge._rejectionFailed(err, rejectCtx);
            }
            finally {
                if (rejectCtx.next) {
                    rejectCtx.next();
                }
            }
        });
    }
    /** Process snapshot response */
    _handleMapStateResponse(flow, result) {
        if (!this._isSubscribing()) {
            this._inflight = false;
            return;
        }
        // Check if server forced LIVE transition during STATE phase.
        // This happens on the last state page when server decides to skip STREAM phase
        // (streamless mode, or positioned mode with stream close enough).
        // Note: phase=0 may be omitted by JSON serializer, so !result.phase handles both 0 and undefined.
        if (!result.phase) {
            this._debug('map subscribe: server forced LIVE transition during state pagination');
            // _handleMapLiveResponse will process result.state and result.publications.
            this._handleMapLiveResponse(flow, result);
            return;
        }
        // Store epoch/offset from first response. Both are frozen for the duration
        // of state pagination to maintain consistency: the stream catch-up must start
        // from where the first state page was captured, not from a later stream.Top().
        if (!this._mapFlowEpoch && result.epoch) {
            this._mapFlowEpoch = result.epoch;
            this._mapFlowOffset = toOffset(result.offset);
        }
        // Validate epoch on subsequent pages - if epoch changed, restart
        if (this._mapFlowEpoch && result.epoch && this._mapFlowEpoch !== result.epoch) {
            this._debug('map subscribe: epoch changed during snapshot pagination, restarting');
            this._restartMapFlow();
            this._fetchSnapshot(flow);
            return;
        }
        // Append state entries to snapshot buffer (state field, not publications).
        if (result.state && result.state.length > 0) {
            this._mapStateBuffer.push(...result.state);
        }
        // Check if there's more data to fetch
        if (result.cursor) {
            this._mapCursor = result.cursor;
            this._fetchSnapshot(flow, this._mapCursor);
            return;
        }
        // No more snapshot pages, transition to next phase
        this._transitionFromSnapshot(flow);
    }
    // The stream epoch changed during the flow: what it collected and the stored
    // position are outdated. The flow continues from a snapshot.
    _restartMapFlow() {
        this._mapStateBuffer = [];
        this._mapStreamBuffer = [];
        this._mapCursor = '';
        this._mapFlowRecovering = false;
        this._mapFlowOffset = 0;
        this._mapFlowEpoch = null;
        this._epoch = null;
        this._offset = null;
        this._recover = false;
        this._prevValueMap = new Map();
        this._mapPhase = MapPhase.State;
    }
    /** Transition from STATE to STREAM phase after snapshot pagination completes */
    _transitionFromSnapshot(flow) {
        this._debug('map subscribe: snapshot complete, transitioning to stream phase');
        // After STATE pagination, move to STREAM phase.
        // Client sends phase=1 requests, server decides when to go LIVE
        // by responding with phase=0.
        this._mapPhase = MapPhase.Stream;
        this._fetchStream(flow);
    }
    /** Fetch stream data (offset-based catch-up) */
    _fetchStream(flow) {
        if (!this._isSubscribing() || !this._isTransportOpen()) {
            this._inflight = false;
            return;
        }
        const cmd = this._buildMapSubscribeCommand(MapPhase.Stream);
        this._debug('map subscribe: fetching stream from offset', this._mapFlowOffset);
        this._subscribeCallFlow = flow;
        // @ts-ignore – we are hiding some symbols from public API autocompletion.
        this._centrifuge._call(cmd).then(resolveCtx => {
            try {
                if (this._settleSubscribeCall(flow, true)) {
                    return;
                }
                // The reply to a page of an earlier flow is outdated.
                if (flow === this._subscribeFlow) {
                    this._handleMapStreamResponse(flow, resolveCtx.reply.subscribe);
                }
            }
            catch (err) {
                // @ts-ignore – we are hiding some symbols from public API autocompletion.
                this._centrifuge._dispatchFailed(err);
            }
            finally {
                if (resolveCtx.next) {
                    resolveCtx.next();
                }
            }
        }, rejectCtx => {
            try {
                if (this._settleSubscribeCall(flow, false, rejectCtx.error)) {
                    return;
                }
                if (flow === this._subscribeFlow) {
                    this._handleMapSubscribeError(rejectCtx.error);
                }
            }
            catch (err) {
                // @ts-ignore – we are hiding some symbols from public API autocompletion.
                this._centrifuge._rejectionFailed(err, rejectCtx);
            }
            finally {
                if (rejectCtx.next) {
                    rejectCtx.next();
                }
            }
        });
    }
    /** Process stream response */
    _handleMapStreamResponse(flow, result) {
        if (!this._isSubscribing()) {
            this._inflight = false;
            return;
        }
        // Check if server forced LIVE transition (server-controlled).
        // When server decides client is close enough, it returns phase=0 (LIVE).
        // Note: phase=0 may be omitted by JSON serializer, so !result.phase handles both 0 and undefined.
        if (!result.phase) {
            this._debug('map subscribe: server forced LIVE transition during stream');
            this._handleMapLiveResponse(flow, result);
            return;
        }
        // Validate epoch - if changed, we need to restart
        if (this._mapFlowEpoch && result.epoch && this._mapFlowEpoch !== result.epoch) {
            this._debug('map subscribe: epoch changed during stream, restarting');
            this._restartMapFlow();
            this._fetchSnapshot(flow);
            return;
        }
        // Append publications to stream buffer
        if (result.publications && result.publications.length > 0) {
            this._mapStreamBuffer.push(...result.publications);
        }
        // Page from the offset in the result. Server returns the last publication's
        // actual offset for intermediate STREAM pages (not stream.Top()). The stored
        // position doesn't move: these entries only reach the app with the live reply.
        if (result.offset !== undefined) {
            this._mapFlowOffset = toOffset(result.offset);
        }
        // Server controls LIVE transition. If server responded with phase=1,
        // we continue STREAM pagination. Server will respond with phase=0 when ready.
        this._fetchStream(flow);
    }
    /** Process live response - complete the map subscription */
    _handleMapLiveResponse(flow, result) {
        if (!this._isSubscribing()) {
            this._inflight = false;
            return;
        }
        this._inflight = false;
        // Validate epoch one more time
        if (this._mapFlowEpoch && result.epoch && this._mapFlowEpoch !== result.epoch) {
            this._debug('map subscribe: epoch changed during live transition, restarting');
            this._restartMapFlow();
            this._inflight = true;
            this._fetchSnapshot(flow);
            return;
        }
        // Values of state and stream pages are escaped only when delta is negotiated,
        // which only the live reply tells: decode the buffered pages now. State entries
        // (including those of this reply) first, then the stream catch-up, whose delta
        // bases the live publications below may build on.
        const deltaNegotiated = !!(this._delta && result.delta);
        const statePubs = result.state && result.state.length > 0 ? this._mapStateBuffer.concat(result.state) : this._mapStateBuffer;
        this._mapStateBuffer = statePubs.map(pub => {
            this._seedDeltaTracking(pub, deltaNegotiated);
            return this._getMapUpdateContext(pub);
        });
        this._mapStreamBuffer = this._mapStreamBuffer.map(pub => {
            this._seedDeltaTracking(pub, deltaNegotiated);
            return this._getMapUpdateContext(pub);
        });
        // Append any remaining publications from the live response to stream buffer.
        // Recovery publications may be delta-encoded — decode before buffering.
        // Use result.delta (not this._delta_negotiated which is set later).
        if (result.publications && result.publications.length > 0) {
            for (const pub of result.publications) {
                if (deltaNegotiated) {
                    // Delta negotiated: decode and update tracking in one block. A removal
                    // carries no payload to decode, and ends the key's delta chain.
                    const deltaKey = pub.key || '';
                    if (pub.removed) {
                        this._prevValueMap.delete(deltaKey);
                    }
                    else {
                        // @ts-ignore – we are hiding some methods from public API autocompletion.
                        const { newData, newPrevValue, isDelta, wireBytes, fullBytes } = this._centrifuge._codec.applyDeltaIfNeeded(pub, this._prevValueMap.get(deltaKey));
                        pub.data = newData;
                        this._deltaNumPubs++;
                        this._deltaBytesReceived += wireBytes;
                        this._deltaBytesDecoded += fullBytes;
                        if (isDelta) {
                            this._deltaNumDelta++;
                        }
                        else {
                            this._deltaNumFull++;
                        }
                        this._prevValueMap.set(deltaKey, newPrevValue);
                    }
                }
                else if (this._delta && pub.key) {
                    // Delta requested but not negotiated: seed tracking with raw data.
                    if (pub.removed) {
                        this._prevValueMap.delete(pub.key);
                    }
                    else {
                        this._prevValueMap.set(pub.key, pub.data);
                    }
                }
                this._mapStreamBuffer.push(this._getMapUpdateContext(pub));
            }
        }
        // Final offset/epoch — use || 0/'' to handle zero values omitted by JSON/protobuf.
        const offset = toOffset(result.offset);
        const epoch = result.epoch || '';
        // Clear subscribing state
        this._clearSubscribingState();
        // Store subscription ID if provided
        if (result.id) {
            this._id = result.id;
        }
        // Recoverable state - enable recovery for reconnects.
        // In streamless mode server omits recoverable (JSON: undefined, protobuf: false).
        const recover = result.recoverable === true;
        // Handle delta negotiation
        if (result.delta) {
            this._delta_negotiated = true;
        }
        else {
            this._delta_negotiated = false;
        }
        // Set publish debounce from subscribe result.
        if (result.publish_debounce) {
            this._debounceMs = result.publish_debounce;
        }
        // Take the buffers: a handler below may unsubscribe and subscribe again,
        // which starts a new flow using them.
        let stateEntries = this._mapStateBuffer;
        let streamEntries = this._mapStreamBuffer;
        this._mapStateBuffer = [];
        this._mapStreamBuffer = [];
        this._mapPhase = null;
        // Build subscribed context with state entries
        // @ts-ignore – we are hiding some methods from public API autocompletion.
        const ctx = this._centrifuge._getSubscribeContext(this.channel, result);
        ctx.state = stateEntries;
        // The reply's offset is the top of the stream, also after a recovery. This
        // differs from a stream subscription, whose reply after a recovery carries the
        // position recovered from (see _setSubscribed). Nor would that position cover
        // the whole catch-up here: its entries can come from several stream pages,
        // buffered until now. Until the events below reached the app, the stored
        // position must not skip what they carry: a handler, from the state event on,
        // may unsubscribe, or subscribe again, in between.
        // The position may also be reset (setTagsFilter()) since this flow started, or by
        // a handler below: it's kept then, and the next subscribe starts from scratch.
        const positionResets = this._mapFlowPositionResets;
        if (this._mapPositionResets === positionResets) {
            this._recover = recover;
            this._epoch = epoch;
            if (!ctx.recovered) {
                // Until sync, the app doesn't have the complete state: start from scratch.
                this._recover = false;
                this._offset = null;
                this._epoch = null;
            }
            else if (streamEntries.length > 0 && streamEntries[0].offset !== undefined) {
                // Before the recovered catch-up.
                this._offset = streamEntries[0].offset - 1;
            }
            else {
                this._offset = offset;
            }
        }
        // Transition to subscribed state. A 'state' handler may have unsubscribed
        // already: no subscribed event then.
        this._setState(SubscriptionState.Subscribed);
        if (!this._isSubscribed()) {
            return;
        }
        // Emit subscribed event
        this.emit('subscribed', ctx);
        // A 'subscribed', 'sync', 'publication' or 'update' handler may have
        // unsubscribed: the rest of this flow must not reach the app. If it subscribed
        // again, promises made since then wait for that subscribe.
        if (!this._isSubscribed()) {
            return;
        }
        this._resolvePromises();
        // Emit sync event — complete state for simplified state management.
        // Skipped on successful recovery (app already has rendered state; stream
        // catch-up is emitted as individual update events).
        if (!ctx.recovered) {
            if (streamEntries.length > 0) {
                // Apply stream catch-up buffer to state by key (last value wins, removed deletes).
                // Produces a single sync snapshot that reflects state as of LIVE transition.
                const stateMap = new Map();
                for (const entry of stateEntries) {
                    stateMap.set(entry.key, entry);
                }
                for (const entry of streamEntries) {
                    if (entry.removed) {
                        stateMap.delete(entry.key);
                    }
                    else {
                        stateMap.set(entry.key, entry);
                    }
                }
                stateEntries = Array.from(stateMap.values());
                streamEntries = []; // Already applied — don't emit as updates.
            }
            if (this._mapPositionResets === positionResets) {
                this._recover = recover;
                this._offset = offset;
                this._epoch = epoch;
            }
            this.emit('sync', { entries: stateEntries });
        }
        // Flush remaining stream buffer as publication and update events.
        // On recovery (sync skipped above) — app already has state and just needs
        // incremental changes. An entry counts as delivered from its update event on,
        // as a live publication (see _handlePublication).
        for (const entry of streamEntries) {
            if (!this._isSubscribed()) {
                return;
            }
            this.emit('publication', entry);
            if (!this._isSubscribed()) {
                return;
            }
            if (entry.offset !== undefined && this._mapPositionResets === positionResets) {
                this._offset = entry.offset;
            }
            this.emit('update', entry);
        }
        if (!this._isSubscribed()) {
            return;
        }
        if (this._mapPositionResets === positionResets) {
            this._offset = offset;
        }
        // Handle token expiry
        if (result.expires === true) {
            this._refreshTimeout = setTimeout(() => this._refresh(), ttlMilliseconds(result.ttl));
        }
    }
    /** Handle errors during map subscription process */
    _handleMapSubscribeError(error) {
        this._inflight = false;
        if (!this._isSubscribing()) {
            return;
        }
        if (error.code === errorCodes.connectionClosed) {
            // See _handleSubscribeError.
            return;
        }
        if (error.code === errorCodes.timeout) {
            // @ts-ignore – we are hiding some symbols from public API autocompletion.
            this._centrifuge._disconnect(connectingCodes.subscribeTimeout, 'subscribe timeout', true);
            return;
        }
        // Clear map state on error. The delta bases stay with the position: a
        // recovery from it gets deltas of the values the client has.
        this._mapStateBuffer = [];
        this._mapStreamBuffer = [];
        this._mapPhase = null;
        // Handle unrecoverable position error (code 112) based on strategy
        if (error.code === 112) {
            if (this._mapUnrecoverableStrategy === 'from_scratch') {
                // Reset position and resubscribe from snapshot
                this._debug('map subscribe: unrecoverable position, restarting from scratch');
                this._prevValueMap = new Map();
                this._offset = null;
                this._epoch = null;
                this._recover = false;
                this._scheduleResubscribe();
                return;
            }
            // 'fatal' strategy: fall through to _subscribeError which will unsubscribe
        }
        this._subscribeError(error);
    }
    /** Build map subscribe command for a specific phase */
    _buildMapSubscribeCommand(phase, cursor) {
        const req = {
            channel: this.channel,
            type: this._mapPresenceType || 1, // 1=MAP, 2=MAP_CLIENTS, 3=MAP_USERS
            phase: phase,
        };
        if (this._token)
            req.token = this._token;
        if (this._tagsFilter)
            req.tf = this._tagsFilter;
        if (this._delta)
            req.delta = this._delta;
        req.flag = subscriptionFlags.channelCompaction;
        // STATE phase
        if (phase === MapPhase.State) {
            if (this._mapPageSize > 0)
                req.limit = this._mapPageSize;
            if (cursor)
                req.cursor = cursor;
            // Epoch validation after first page
            if (this._mapFlowEpoch) {
                req.offset = this._mapFlowOffset;
                req.epoch = this._mapFlowEpoch;
            }
            else {
                // First request of the flow — include custom data.
                if (this._data)
                    req.data = this._data;
            }
        }
        // STREAM phase
        if (phase === MapPhase.Stream) {
            if (this._mapPageSize > 0)
                req.limit = this._mapPageSize;
            req.offset = this._mapFlowOffset;
            req.epoch = this._mapFlowEpoch;
            if (this._mapFlowRecovering) {
                req.recover = true;
                // First request of the flow (skipped STATE) — include custom data for authorization.
                if (this._mapStreamBuffer.length === 0) {
                    if (this._data)
                        req.data = this._data;
                }
            }
        }
        return { subscribe: req };
    }
    /** Convert raw publication to MapUpdateContext */
    _getMapUpdateContext(pub) {
        const ctx = {
            channel: this.channel,
            data: pub.data,
            key: pub.key || '',
        };
        if (pub.removed === true) {
            ctx.removed = true;
        }
        if (pub.offset !== undefined) {
            ctx.offset = toOffset(pub.offset);
        }
        if (pub.info) {
            // @ts-ignore – we are hiding some methods from public API autocompletion.
            ctx.info = this._centrifuge._getJoinLeaveContext(pub.info);
        }
        if (pub.tags) {
            ctx.tags = pub.tags;
        }
        return ctx;
    }
    /** Convert raw publication to SharedPollUpdateContext */
    _getSharedPollUpdateContext(pub) {
        const ctx = {
            channel: this.channel,
            key: pub.key || '',
            data: pub.data,
        };
        if (pub.removed === true) {
            ctx.removed = true;
        }
        if (pub.version !== undefined) {
            ctx.version = toOffset(pub.version);
        }
        return ctx;
    }
}
/** Stream subscription with publish/history methods. */
class Subscription extends BaseSubscription {
    /** Publish data to the channel. */
    publish(data) {
        return __awaiter(this, void 0, void 0, function* () {
            yield this._methodCall();
            // Debounce per channel (key = "" for stream publishes).
            if (this._debounceMs > 0) {
                return this._debouncedPublish('', data, false);
            }
            return this._centrifuge.publish(this.channel, data);
        });
    }
    /** history for a channel. By default it does not return publications (only current
     *  StreamPosition data) – provide an explicit limit > 0 to load publications.*/
    history(opts) {
        return __awaiter(this, void 0, void 0, function* () {
            yield this._methodCall();
            return this._centrifuge.history(this.channel, opts);
        });
    }
}
/** Map subscription with publish/remove methods. */
class MapSubscription extends BaseSubscription {
    /** Publish data to a key. */
    publish(key, data) {
        return __awaiter(this, void 0, void 0, function* () {
            yield this._methodCall();
            if (this._debounceMs > 0) {
                return this._debouncedPublish(key, data, true);
            }
            return this._centrifuge.mapPublish(this.channel, key, data);
        });
    }
    /** Remove a key. */
    remove(key) {
        return __awaiter(this, void 0, void 0, function* () {
            yield this._methodCall();
            // Cancel any pending debounced publish for this key.
            this._cancelDebounce(key);
            return this._centrifuge.mapRemove(this.channel, key);
        });
    }
}
/** Shared poll subscription with track/untrack/trackedKeys. */
class SharedPollSubscription extends BaseSubscription {
    /** Track items in a shared poll subscription.
     *
     * Overloads:
     * - `track(keys: string[])` — pass key names only (version defaults to 0).
     *   Requires `getSignature` callback in subscription options. The SDK
     *   automatically obtains a signature before sending the track request.
     * - `track(items: SharedPollTrackItem[], signature: string)` — pass items
     *   with explicit versions and a pre-computed HMAC signature.
     *
     * Items are stored in local state immediately. If subscribed, the track request
     * is sent right away. If not yet subscribed, items will be sent via replay
     * (with a fresh signature from getSignature) after subscribe completes.
     *
     * **Fire-and-forget** (similar to subscribe/unsubscribe): returns void and never
     * throws for in-flight failures. Subscribe to the `error` event to observe
     * failures: `type: 'track'` covers both the server-side track request and
     * the `getSignature` callback when using `track(keys)`. Server-revoked keys
     * arrive as synthetic `update` events with `removed: true`. */
    track(keysOrItems, signature) {
        if (keysOrItems.length === 0) {
            return; // Nothing to track — avoid wasteful getSignature call.
        }
        let items;
        const sig = signature;
        if (typeof keysOrItems[0] === 'string') {
            const keys = keysOrItems;
            items = keys.map(k => ({ key: k, version: 0 }));
        }
        else {
            items = keysOrItems;
        }
        // Update per-connection tracked items (use max(existing, new) so a stale
        // page load can't downgrade a version already advanced by a publication).
        for (const item of items) {
            // A version an app stored and restored comes back as an object, see toOffset.
            const version = toOffset(item.version);
            const existing = this._sharedPollTrackedItems.get(item.key);
            if (existing === undefined || version > existing) {
                this._sharedPollTrackedItems.set(item.key, version);
            }
        }
        if (sig !== undefined) {
            // Explicit signature path — append to library and (if subscribed) send.
            this._addSharedPollSignature(items.map(i => i.key), sig);
            if (this._isSubscribed() && !this._sharedPollReplayPending) {
                this._sendTrackRequest([{ items, signature: sig }]).catch(e => {
                    this._handleTrackError(e.error, e.keys);
                });
            }
            // If not subscribed yet, or completing the subscribe, _sharedPollReplayTrack
            // sends it after subscribe.
            return;
        }
        // Auto-obtain signature via getSignature callback.
        if (!this._sharedPollGetSignature) {
            this.emit('error', {
                type: 'track',
                channel: this.channel,
                error: { code: errorCodes.sharedPollGetSignature, message: 'getSignature callback required for track(keys)' },
            });
            return;
        }
        if (!this._isSubscribed() || this._sharedPollReplayPending) {
            // Defer the getSignature call until after subscribe — _sharedPollReplayTrack
            // will obtain a signature covering all tracked keys at once.
            return;
        }
        const keys = items.map(i => i.key);
        const generation = this._refreshGeneration;
        this._callAsync(() => this._sharedPollGetSignature({ keys })).then(result => {
            // The subscription ended meanwhile, e.g. by a reconnect: its replay asks again.
            if (generation !== this._refreshGeneration || !this._isSubscribed())
                return;
            // Handle revoked keys.
            const returnedKeys = new Set(result.keys);
            const revokedKeys = [];
            for (const key of keys) {
                if (!returnedKeys.has(key) && this._sharedPollTrackedItems.has(key)) {
                    this._sharedPollTrackedItems.delete(key);
                    revokedKeys.push(key);
                    // A handler of an earlier removal may have ended the subscription: the
                    // keys are still untracked below, but nothing more is delivered.
                    if (!this._isSubscribed()) {
                        continue;
                    }
                    this.emit('update', {
                        channel: this.channel,
                        key: key,
                        data: null,
                        removed: true,
                    });
                }
            }
            // Server may already be tracking some of these from a prior track() with
            // a different signature — send untrack so it stops broadcasting them.
            if (revokedKeys.length > 0) {
                this._sendUntrackRequest(revokedKeys).catch(err => {
                    this.emit('error', { type: 'untrack', channel: this.channel, error: err });
                });
            }
            // A getSignature that works again: the next failure starts the backoff over.
            this._sharedPollReplayRetryAttempts = 0;
            // Track authorized keys.
            const authorizedItems = [];
            for (const key of result.keys) {
                const version = this._sharedPollTrackedItems.get(key);
                if (version !== undefined) {
                    authorizedItems.push({ key, version });
                }
            }
            if (authorizedItems.length === 0)
                return;
            // Cache the obtained signature for reconnect replay.
            this._addSharedPollSignature(result.keys, result.signature);
            this._sendTrackRequest([{ items: authorizedItems, signature: result.signature }]).catch(e => {
                this._handleTrackError(e.error, e.keys);
            });
        }).catch(e => {
            if (generation !== this._refreshGeneration || !this._isSubscribed())
                return;
            this._emitError({
                type: 'track',
                channel: this.channel,
                error: { code: errorCodes.sharedPollGetSignature, message: e !== undefined ? e.toString() : 'getSignature failed' },
            }, () => {
                if (generation !== this._refreshGeneration || !this._isSubscribed())
                    return;
                // Retried by the replay, which gets a signature for the keys without one.
                this._scheduleSharedPollReplayRetry();
            });
        });
    }
    /** Stop tracking specific keys in a shared poll subscription.
     * Keys are removed from local state immediately. If subscribed, the untrack
     * request is sent right away. If not yet subscribed, the keys simply won't
     * be included in the replay after subscribe completes.
     *
     * **Fire-and-forget** (similar to subscribe/unsubscribe): returns void and never
     * throws for in-flight failures. Subscribe to the `error` event with
     * `type: 'untrack'` to observe failures of the untrack request. */
    untrack(keys) {
        for (const key of keys) {
            this._sharedPollTrackedItems.delete(key);
        }
        // Drop any signature entries whose ENTIRE key set is now untracked —
        // they contribute nothing to reconnect replays and would grow unboundedly
        // in long-running sessions with many track/untrack cycles. Entries where
        // at least one key is still tracked are kept intact: pruning them would
        // cause those live keys to lose their signature on the next reconnect.
        this._sharedPollSignatures = this._sharedPollSignatures.filter(entry => entry.keys.some(k => this._sharedPollTrackedItems.has(k)));
        if (this._isSubscribed()) {
            this._sendUntrackRequest(keys).catch(err => {
                this.emit('error', {
                    type: 'untrack',
                    channel: this.channel,
                    error: err,
                });
            });
        }
    }
    /** Returns the set of currently tracked keys in a shared poll subscription. */
    trackedKeys() {
        return new Set(this._sharedPollTrackedItems.keys());
    }
}

/** @internal */
class SockjsTransport {
    constructor(endpoint, options) {
        this.endpoint = endpoint;
        this.options = options;
        this._transport = null;
    }
    name() {
        return 'sockjs';
    }
    subName() {
        return 'sockjs-' + this._transport.transport;
    }
    emulation() {
        return false;
    }
    supported() {
        return this.options.sockjs !== null;
    }
    initialize(_protocol, callbacks) {
        this._transport = new this.options.sockjs(this.endpoint, null, this.options.sockjsOptions);
        this._transport.onopen = () => {
            callbacks.onOpen();
        };
        this._transport.onerror = e => {
            callbacks.onError(e);
        };
        this._transport.onclose = closeEvent => {
            callbacks.onClose(closeEvent);
        };
        this._transport.onmessage = event => {
            callbacks.onMessage(event.data);
        };
    }
    close() {
        // No socket if its constructor threw in initialize().
        if (this._transport !== null) {
            this._transport.close();
        }
    }
    send(data) {
        this._transport.send(data);
    }
}

/** @internal */
class WebsocketTransport {
    constructor(endpoint, options) {
        this.endpoint = endpoint;
        this.options = options;
        this._transport = null;
    }
    name() {
        return 'websocket';
    }
    subName() {
        return 'websocket';
    }
    emulation() {
        return false;
    }
    supported() {
        return this.options.websocket !== undefined && this.options.websocket !== null;
    }
    initialize(protocol, callbacks) {
        let subProtocol = '';
        if (protocol === 'protobuf') {
            subProtocol = 'centrifuge-protobuf';
        }
        if (subProtocol !== '') {
            this._transport = new this.options.websocket(this.endpoint, subProtocol);
        }
        else {
            this._transport = new this.options.websocket(this.endpoint);
        }
        if (protocol === 'protobuf') {
            this._transport.binaryType = 'arraybuffer';
        }
        this._transport.onopen = () => {
            callbacks.onOpen();
        };
        this._transport.onerror = e => {
            callbacks.onError(e);
        };
        this._transport.onclose = closeEvent => {
            callbacks.onClose(closeEvent);
        };
        this._transport.onmessage = event => {
            callbacks.onMessage(event.data);
        };
    }
    close() {
        // No socket if its constructor threw in initialize().
        if (this._transport !== null) {
            this._transport.close();
        }
    }
    send(data) {
        this._transport.send(data);
    }
}

// A buffer grown beyond this for a large reply is released once the reply is cut out.
const maxRetainedSize = 64 * 1024;
/** @internal Collects the chunks of a binary stream and cuts complete replies out
 * of them. Appending a chunk and cutting a reply cost their own size only, not the
 * size of what is buffered: a large reply arriving in many small chunks is not
 * copied again for every chunk. */
class ReplyStreamBuffer {
    constructor() {
        this._buf = new Uint8Array(0);
        this._start = 0;
        this._end = 0;
    }
    push(chunk) {
        const size = this._end - this._start;
        if (this._end + chunk.length > this._buf.length) {
            if (size + chunk.length <= this._buf.length / 2) {
                // Enough room once the data already cut out is dropped.
                this._buf.copyWithin(0, this._start, this._end);
            }
            else {
                const buf = new Uint8Array(Math.max(this._buf.length * 2, size + chunk.length));
                buf.set(this._buf.subarray(this._start, this._end));
                this._buf = buf;
            }
            this._start = 0;
            this._end = size;
        }
        this._buf.set(chunk, this._end);
        this._end += chunk.length;
    }
    // Calls onReply with a copy of each complete reply buffered, in order.
    // decodeReply tells whether the data starts with a complete reply, and where it ends.
    drain(decodeReply, onReply) {
        while (this._start < this._end) {
            const result = decodeReply(this._buf.subarray(this._start, this._end));
            if (!result.ok) {
                break;
            }
            const end = this._start + result.pos;
            const reply = this._buf.slice(this._start, end);
            this._start = end;
            onReply(reply);
        }
        const size = this._end - this._start;
        if (this._buf.length > maxRetainedSize && size <= this._buf.length / 4) {
            // Don't keep the memory of a large reply for the rest of the connection. The
            // copy costs at most a quarter of what growing the buffer did.
            this._buf = this._buf.slice(this._start, this._end);
            this._start = 0;
            this._end = size;
        }
        else if (size === 0) {
            this._start = 0;
            this._end = 0;
        }
    }
}
/** @internal Collects the chunks of a stream of newline-delimited text replies and
 * cuts complete lines out of them. Each chunk is scanned once, and the parts of a
 * line arriving in many chunks are joined once: a large reply doesn't make every
 * chunk cost more. */
class LineStreamBuffer {
    constructor() {
        this._decoder = new TextDecoder();
        this._parts = [];
    }
    // Calls onLine with each complete line, in order, without its '\n'.
    push(chunk, onLine) {
        // stream: true keeps decoder state across reads so a multi-byte UTF-8 character
        // split across two chunks is not corrupted into replacement characters.
        const text = this._decoder.decode(chunk, { stream: true });
        let start = 0;
        let end = text.indexOf('\n');
        while (end !== -1) {
            this._parts.push(text.substring(start, end));
            const line = this._parts.join('');
            this._parts = [];
            start = end + 1;
            onLine(line);
            end = text.indexOf('\n', start);
        }
        if (start < text.length) {
            this._parts.push(text.substring(start));
        }
    }
}

/** @internal */
class HttpStreamTransport {
    constructor(endpoint, options) {
        this.endpoint = endpoint;
        this.options = options;
        this._abortController = null;
        this._protocol = 'json';
    }
    name() {
        return 'http_stream';
    }
    subName() {
        return 'http_stream';
    }
    emulation() {
        return true;
    }
    _handleErrors(response) {
        if (!response.ok)
            throw new Error(response.status);
        return response;
    }
    _fetchEventTarget(self, endpoint, options) {
        const eventTarget = new EventTarget();
        // fetch with connection timeout maybe? https://github.com/github/fetch/issues/175
        const fetchFunc = self.options.fetch;
        fetchFunc(endpoint, options)
            .then(self._handleErrors)
            .then(response => {
            eventTarget.dispatchEvent(new Event('open'));
            const jsonStreamBuf = new LineStreamBuffer();
            const protoStreamBuf = new ReplyStreamBuffer();
            const reader = response.body.getReader();
            return new self.options.readableStream({
                start(controller) {
                    function pump() {
                        return reader.read().then(({ done, value }) => {
                            // When no more data needs to be consumed, close the stream
                            if (done) {
                                eventTarget.dispatchEvent(new Event('close'));
                                controller.close();
                                return;
                            }
                            try {
                                if (self._protocol === 'json') {
                                    jsonStreamBuf.push(value, line => eventTarget.dispatchEvent(new MessageEvent('message', { data: line })));
                                }
                                else {
                                    protoStreamBuf.push(value);
                                    protoStreamBuf.drain(data => self.options.decoder.decodeReply(data), reply => eventTarget.dispatchEvent(new MessageEvent('message', { data: reply })));
                                }
                            }
                            catch (error) {
                                // @ts-ignore - improve later.
                                eventTarget.dispatchEvent(new Event('error', { detail: error }));
                                eventTarget.dispatchEvent(new Event('close'));
                                controller.close();
                                return;
                            }
                            pump();
                        }).catch(function (e) {
                            // @ts-ignore - improve later.
                            eventTarget.dispatchEvent(new Event('error', { detail: e }));
                            eventTarget.dispatchEvent(new Event('close'));
                            controller.close();
                            return;
                        });
                    }
                    return pump();
                }
            });
        })
            .catch(error => {
            // @ts-ignore - improve later.
            eventTarget.dispatchEvent(new Event('error', { detail: error }));
            eventTarget.dispatchEvent(new Event('close'));
        });
        return eventTarget;
    }
    supported() {
        return this.options.fetch !== null &&
            this.options.readableStream !== null &&
            typeof TextDecoder !== 'undefined' &&
            typeof AbortController !== 'undefined' &&
            typeof EventTarget !== 'undefined' &&
            typeof Event !== 'undefined' &&
            typeof MessageEvent !== 'undefined' &&
            typeof Error !== 'undefined';
    }
    initialize(protocol, callbacks, initialData) {
        this._protocol = protocol;
        this._abortController = new AbortController();
        let headers;
        let body;
        if (protocol === 'json') {
            headers = {
                'Accept': 'application/json',
                'Content-Type': 'application/json'
            };
            body = initialData;
        }
        else {
            headers = {
                'Accept': 'application/octet-stream',
                'Content-Type': 'application/octet-stream'
            };
            body = initialData;
        }
        const fetchOptions = {
            method: 'POST',
            headers: headers,
            body: body,
            mode: 'cors',
            credentials: 'same-origin',
            signal: this._abortController.signal
        };
        const eventTarget = this._fetchEventTarget(this, this.endpoint, fetchOptions);
        eventTarget.addEventListener('open', () => {
            callbacks.onOpen();
        });
        eventTarget.addEventListener('error', (e) => {
            this._abortController.abort();
            callbacks.onError(e);
        });
        eventTarget.addEventListener('close', () => {
            this._abortController.abort();
            callbacks.onClose({
                code: 4,
                reason: 'connection closed'
            });
        });
        eventTarget.addEventListener('message', (e) => {
            callbacks.onMessage(e.data);
        });
    }
    close() {
        // Not created if initialize() threw before creating it.
        if (this._abortController !== null) {
            this._abortController.abort();
        }
    }
    send(data, session, node) {
        let headers;
        let body;
        const req = {
            session: session,
            node: node,
            data: data
        };
        if (this._protocol === 'json') {
            headers = {
                'Content-Type': 'application/json'
            };
            body = JSON.stringify(req);
        }
        else {
            headers = {
                'Content-Type': 'application/octet-stream'
            };
            body = this.options.encoder.encodeEmulationRequest(req);
        }
        const fetchFunc = this.options.fetch;
        const fetchOptions = {
            method: 'POST',
            headers: headers,
            body: body,
            mode: 'cors',
            credentials: 'same-origin',
            // Closing the transport aborts requests still pending, e.g. hung in an
            // intermediary, which would otherwise keep connections of the per-host pool.
            signal: this._abortController.signal
        };
        fetchFunc(this.options.emulationEndpoint, fetchOptions).then(response => {
            // The server has no node of the session (404), e.g. the node was restarted, or
            // the server or an intermediary failed. Other statuses, e.g. a too large request
            // body, reject only this command. A session gone from a running node is answered
            // with 204: its stream ends then.
            if (response && (response.status === 404 || response.status >= 500)) {
                this.close();
            }
        }, () => {
            // The command was not delivered. Close the transport so the client
            // reconnects instead of waiting for the command timeout.
            this.close();
        });
    }
}

/** @internal */
class SseTransport {
    constructor(endpoint, options) {
        this.endpoint = endpoint;
        this.options = options;
        this._protocol = 'json';
        this._transport = null;
        this._onClose = null;
        this._abortController = null;
    }
    name() {
        return 'sse';
    }
    subName() {
        return 'sse';
    }
    emulation() {
        return true;
    }
    supported() {
        return this.options.eventsource !== null && this.options.fetch !== null;
    }
    initialize(_protocol, callbacks, initialData) {
        // Aborts pending emulation requests on close.
        if (typeof AbortController !== 'undefined') {
            this._abortController = new AbortController();
        }
        let url;
        if (globalThis && globalThis.document && globalThis.document.baseURI) {
            // Handle case when endpoint is relative, like //example.com/connection/sse
            url = new URL(this.endpoint, globalThis.document.baseURI);
        }
        else {
            url = new URL(this.endpoint);
        }
        url.searchParams.append('cf_connect', initialData);
        const eventsourceOptions = {};
        const eventSource = new this.options.eventsource(url.toString(), eventsourceOptions);
        this._transport = eventSource;
        const self = this;
        eventSource.onopen = function () {
            callbacks.onOpen();
        };
        eventSource.onerror = function (e) {
            eventSource.close();
            callbacks.onError(e);
            callbacks.onClose({
                code: 4,
                reason: 'connection closed'
            });
        };
        eventSource.onmessage = function (e) {
            callbacks.onMessage(e.data);
        };
        self._onClose = function () {
            callbacks.onClose({
                code: 4,
                reason: 'connection closed'
            });
        };
    }
    close() {
        if (this._abortController !== null) {
            this._abortController.abort();
        }
        // No event source if its constructor threw in initialize().
        if (this._transport !== null) {
            this._transport.close();
        }
        if (this._onClose !== null) {
            this._onClose();
        }
    }
    send(data, session, node) {
        const req = {
            session: session,
            node: node,
            data: data
        };
        const headers = {
            'Content-Type': 'application/json'
        };
        const body = JSON.stringify(req);
        const fetchFunc = this.options.fetch;
        // Closing the transport aborts requests still pending, e.g. hung in an
        // intermediary, which would otherwise keep connections of the per-host pool.
        const signal = this._abortController !== null ? this._abortController.signal : undefined;
        const fetchOptions = {
            method: 'POST',
            headers: headers,
            body: body,
            mode: 'cors',
            credentials: 'same-origin',
            signal: signal
        };
        fetchFunc(this.options.emulationEndpoint, fetchOptions).then(response => {
            // The server has no node of the session (404), e.g. the node was restarted, or
            // the server or an intermediary failed. Other statuses, e.g. a too large request
            // body, reject only this command. A session gone from a running node is answered
            // with 204: its stream ends then.
            if (response && (response.status === 404 || response.status >= 500)) {
                this.close();
            }
        }, () => {
            // Aborted because the transport was closed already.
            if (signal && signal.aborted) {
                return;
            }
            // The command was not delivered. Close the transport so the client
            // reconnects instead of waiting for the command timeout.
            this.close();
        });
    }
}

/** @internal */
class WebtransportTransport {
    constructor(endpoint, options) {
        this.endpoint = endpoint;
        this.options = options;
        this._transport = null;
        this._stream = null;
        this._writer = null;
        this._protocol = 'json';
    }
    name() {
        return 'webtransport';
    }
    subName() {
        return 'webtransport';
    }
    emulation() {
        return false;
    }
    supported() {
        return this.options.webtransport !== undefined && this.options.webtransport !== null;
    }
    initialize(protocol, callbacks) {
        return __awaiter(this, void 0, void 0, function* () {
            let url;
            if (globalThis && globalThis.document && globalThis.document.baseURI) {
                // Handle case when endpoint is relative, like //example.com/connection/webtransport
                url = new URL(this.endpoint, globalThis.document.baseURI);
            }
            else {
                url = new URL(this.endpoint);
            }
            if (protocol === 'protobuf') {
                url.searchParams.append('cf_protocol', 'protobuf');
            }
            this._protocol = protocol;
            const eventTarget = new EventTarget();
            this._transport = new this.options.webtransport(url.toString());
            this._transport.closed.then(() => {
                callbacks.onClose({
                    code: 4,
                    reason: 'connection closed'
                });
            }).catch(() => {
                callbacks.onClose({
                    code: 4,
                    reason: 'connection closed'
                });
            });
            try {
                yield this._transport.ready;
            }
            catch (_a) {
                this.close();
                return;
            }
            let stream;
            try {
                stream = yield this._transport.createBidirectionalStream();
            }
            catch (_b) {
                this.close();
                return;
            }
            this._stream = stream;
            this._writer = this._stream.writable.getWriter();
            eventTarget.addEventListener('close', () => {
                callbacks.onClose({
                    code: 4,
                    reason: 'connection closed'
                });
            });
            eventTarget.addEventListener('message', (e) => {
                callbacks.onMessage(e.data);
            });
            this._startReading(eventTarget);
            callbacks.onOpen();
        });
    }
    _startReading(eventTarget) {
        return __awaiter(this, void 0, void 0, function* () {
            const reader = this._stream.readable.getReader();
            const jsonStreamBuf = new LineStreamBuffer();
            const protoStreamBuf = new ReplyStreamBuffer();
            try {
                while (true) {
                    const { done, value } = yield reader.read();
                    if (value && value.length > 0) {
                        if (this._protocol === 'json') {
                            jsonStreamBuf.push(value, line => eventTarget.dispatchEvent(new MessageEvent('message', { data: line })));
                        }
                        else {
                            protoStreamBuf.push(value);
                            protoStreamBuf.drain(data => this.options.decoder.decodeReply(data), reply => eventTarget.dispatchEvent(new MessageEvent('message', { data: reply })));
                        }
                    }
                    if (done) {
                        break;
                    }
                }
            }
            catch (_a) {
                eventTarget.dispatchEvent(new Event('close'));
            }
        });
    }
    close() {
        return __awaiter(this, void 0, void 0, function* () {
            try {
                if (this._writer) {
                    yield this._writer.close();
                }
                this._transport.close();
            }
            catch (e) {
                // already closed.
            }
        });
    }
    send(data) {
        return __awaiter(this, void 0, void 0, function* () {
            let binary;
            if (this._protocol === 'json') {
                // Need extra \n since WT is non-frame protocol. 
                binary = new TextEncoder().encode(data + '\n');
            }
            else {
                binary = data;
            }
            try {
                yield this._writer.write(binary);
            }
            catch (e) {
                this.close();
            }
        });
    }
}

/*
Copyright 2014-2024 Dmitry Chestnykh (JavaScript port)
Copyright 2007 D. Richard Hipp  (original C version)

Fossil SCM delta compression algorithm, this is only the applyDelta part extracted
from https://github.com/dchest/fossil-delta-js. The code was slightly modified
to strip unnecessary parts. The copyright on top of this file is from the original
repo on Github licensed under Simplified BSD License.
*/
const zValue = [
    -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1,
    -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1,
    -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, -1, -1,
    -1, -1, -1, -1, -1, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23,
    24, 25, 26, 27, 28, 29, 30, 31, 32, 33, 34, 35, -1, -1, -1, -1, 36, -1, 37,
    38, 39, 40, 41, 42, 43, 44, 45, 46, 47, 48, 49, 50, 51, 52, 53, 54, 55, 56,
    57, 58, 59, 60, 61, 62, -1, -1, -1, 63, -1,
];
// Reader reads bytes, chars, ints from array.
class Reader {
    constructor(array) {
        this.a = array; // source array
        this.pos = 0; // current position in array
    }
    haveBytes() {
        return this.pos < this.a.length;
    }
    getByte() {
        const b = this.a[this.pos];
        this.pos++;
        if (this.pos > this.a.length)
            throw new RangeError("out of bounds");
        return b;
    }
    getChar() {
        return String.fromCharCode(this.getByte());
    }
    // Read base64-encoded unsigned integer.
    getInt() {
        let v = 0;
        let c;
        while (this.haveBytes() && (c = zValue[0x7f & this.getByte()]) >= 0) {
            v = (v << 6) + c;
        }
        this.pos--;
        return v >>> 0;
    }
}
// Write writes an array.
class Writer {
    constructor() {
        this.a = [];
    }
    toByteArray(sourceType) {
        if (Array.isArray(sourceType)) {
            return this.a;
        }
        return new Uint8Array(this.a);
    }
    // Copy from array at start to end.
    putArray(a, start, end) {
        // TODO: optimize.
        for (let i = start; i < end; i++)
            this.a.push(a[i]);
    }
}
// Return a 32-bit checksum of the array.
function checksum(arr) {
    let sum0 = 0, sum1 = 0, sum2 = 0, sum3 = 0, z = 0, N = arr.length;
    //TODO measure if this unrolling is helpful.
    while (N >= 16) {
        sum0 = (sum0 + arr[z + 0]) | 0;
        sum1 = (sum1 + arr[z + 1]) | 0;
        sum2 = (sum2 + arr[z + 2]) | 0;
        sum3 = (sum3 + arr[z + 3]) | 0;
        sum0 = (sum0 + arr[z + 4]) | 0;
        sum1 = (sum1 + arr[z + 5]) | 0;
        sum2 = (sum2 + arr[z + 6]) | 0;
        sum3 = (sum3 + arr[z + 7]) | 0;
        sum0 = (sum0 + arr[z + 8]) | 0;
        sum1 = (sum1 + arr[z + 9]) | 0;
        sum2 = (sum2 + arr[z + 10]) | 0;
        sum3 = (sum3 + arr[z + 11]) | 0;
        sum0 = (sum0 + arr[z + 12]) | 0;
        sum1 = (sum1 + arr[z + 13]) | 0;
        sum2 = (sum2 + arr[z + 14]) | 0;
        sum3 = (sum3 + arr[z + 15]) | 0;
        z += 16;
        N -= 16;
    }
    while (N >= 4) {
        sum0 = (sum0 + arr[z + 0]) | 0;
        sum1 = (sum1 + arr[z + 1]) | 0;
        sum2 = (sum2 + arr[z + 2]) | 0;
        sum3 = (sum3 + arr[z + 3]) | 0;
        z += 4;
        N -= 4;
    }
    sum3 = (((((sum3 + (sum2 << 8)) | 0) + (sum1 << 16)) | 0) + (sum0 << 24)) | 0;
    switch (N) {
        //@ts-ignore fallthrough is needed.
        case 3:
            sum3 = (sum3 + (arr[z + 2] << 8)) | 0; /* falls through */
        //@ts-ignore fallthrough is needed.
        case 2:
            sum3 = (sum3 + (arr[z + 1] << 16)) | 0; /* falls through */
        case 1:
            sum3 = (sum3 + (arr[z + 0] << 24)) | 0; /* falls through */
    }
    return sum3 >>> 0;
}
/**
 * Apply a delta byte array to a source byte array, returning the target byte array.
 */
function applyDelta(source, delta) {
    let total = 0;
    const zDelta = new Reader(delta);
    const lenSrc = source.length;
    const lenDelta = delta.length;
    const limit = zDelta.getInt();
    if (zDelta.getChar() !== "\n")
        throw new Error("size integer not terminated by '\\n'");
    const zOut = new Writer();
    while (zDelta.haveBytes()) {
        const cnt = zDelta.getInt();
        let ofst;
        switch (zDelta.getChar()) {
            case "@":
                ofst = zDelta.getInt();
                if (zDelta.haveBytes() && zDelta.getChar() !== ",")
                    throw new Error("copy command not terminated by ','");
                total += cnt;
                if (total > limit)
                    throw new Error("copy exceeds output file size");
                if (ofst + cnt > lenSrc)
                    throw new Error("copy extends past end of input");
                zOut.putArray(source, ofst, ofst + cnt);
                break;
            case ":":
                total += cnt;
                if (total > limit)
                    throw new Error("insert command gives an output larger than predicted");
                if (cnt > lenDelta)
                    throw new Error("insert count exceeds size of delta");
                zOut.putArray(zDelta.a, zDelta.pos, zDelta.pos + cnt);
                zDelta.pos += cnt;
                break;
            case ";":
                {
                    const out = zOut.toByteArray(source);
                    if (cnt !== checksum(out))
                        throw new Error("bad checksum");
                    if (total !== limit)
                        throw new Error("generated size does not match predicted size");
                    return out;
                }
            default:
                throw new Error("unknown delta operator");
        }
    }
    throw new Error("unterminated delta");
}

/** @internal */
class JsonCodec {
    name() {
        return 'json';
    }
    encodeCommands(commands) {
        return commands.map(c => JSON.stringify(c)).join('\n');
    }
    decodeReplies(data) {
        // Empty lines carry nothing, e.g. newlines an intermediary sends to keep a
        // stream alive: they are skipped instead of failing to parse.
        return data.split('\n').filter(r => r.trim() !== '').map(r => JSON.parse(r));
    }
    applyDeltaIfNeeded(pub, prevValue) {
        let newData, newPrevValue, wireBytes;
        let isDelta;
        if (pub.delta) {
            isDelta = true;
            // JSON string delta.
            const deltaBytes = new TextEncoder().encode(pub.data);
            const valueArray = applyDelta(prevValue, deltaBytes);
            newData = JSON.parse(new TextDecoder().decode(valueArray));
            newPrevValue = valueArray;
            wireBytes = deltaBytes.length;
        }
        else {
            isDelta = false;
            // Full data as JSON string.
            newData = JSON.parse(pub.data);
            newPrevValue = new TextEncoder().encode(pub.data);
            wireBytes = newPrevValue.length;
        }
        // wireBytes is the UTF-8 byte length of pub.data, not its JS string length
        // (.length counts UTF-16 code units, which undercounts any non-ASCII content).
        return { newData, newPrevValue, isDelta, wireBytes, fullBytes: newPrevValue.length };
    }
}

const defaults = {
    headers: {},
    token: '',
    getToken: null,
    data: null,
    getData: null,
    debug: false,
    name: 'js',
    version: '',
    fetch: null,
    readableStream: null,
    websocket: null,
    eventsource: null,
    sockjs: null,
    sockjsOptions: {},
    emulationEndpoint: '/emulation',
    minReconnectDelay: 500,
    maxReconnectDelay: 20000,
    timeout: 5000,
    maxServerPingDelay: 10000,
    networkEventTarget: null,
    pageEventTarget: null,
};
const websocketNotFound = 'WebSocket constructor not found, make sure it is available globally or passed as a dependency in Centrifuge options';
// A call or no-ping timer running at least this late means the event loop didn't
// run meanwhile: the process was suspended or blocked (see _registerCall).
const lateCallTimer = 1000;
// How long such a call still waits for its reply, or the connection for a ping,
// before failing.
const lateCallGrace = 1000;
function errorMessage(err) {
    try {
        return err instanceof Error ? err.message : String(err);
    }
    catch (e) {
        // E.g. a thrown Object.create(null): it has no string form.
        return 'value without a string form';
    }
}
class UnauthorizedError extends Error {
    constructor(message) {
        super(message);
        this.name = this.constructor.name;
    }
}
/** Centrifuge is a Centrifuge/Centrifugo bidirectional client. */
class Centrifuge extends EventEmitter {
    /** Constructs Centrifuge client. Call connect() method to start connecting. */
    constructor(endpoint, options) {
        super();
        this._reconnectTimeout = null;
        this._connectTimeout = null;
        // Unsubscribes still in progress of subscriptions removed from the client, per channel.
        this._removedUnsubscribes = {};
        // The offset of the publication being dispatched, per server-side channel, until its
        // handler returned. See _handlePublication and the subs of _constructConnectCommand.
        this._pendingServerSubOffsets = {};
        this._refreshTimeout = null;
        this._serverPingTimeout = null;
        /** @internal The number of exceptions escaped from event handlers (see _handlerFailed). */
        this._handlerFailures = 0;
        this.state = State.Disconnected;
        this._transportIsOpen = false;
        this._endpoint = endpoint;
        this._emulation = false;
        this._transports = [];
        this._currentTransportIndex = 0;
        this._triedAllTransports = false;
        this._transportWasOpen = false;
        this._transport = null;
        this._transportId = 0;
        this._deviceWentOffline = false;
        this._transportClosed = true;
        this._codec = new JsonCodec();
        this._reconnecting = false;
        this._reconnectTimeout = null;
        this._connectTimeout = null;
        this._reconnectAttempts = 0;
        this._client = null;
        this._session = '';
        this._node = '';
        this._subs = {};
        this._serverSubs = {};
        this._commandId = 0;
        this._commands = [];
        this._batching = false;
        this._refreshRequired = false;
        this._refreshTimeout = null;
        this._callbacks = {};
        this._token = '';
        this._data = null;
        this._dispatchPromise = Promise.resolve();
        this._serverPing = 0;
        this._serverPingTimeout = null;
        this._sendPong = false;
        this._promises = {};
        this._promiseId = 0;
        this._debugEnabled = false;
        this._networkEvents = null;
        this._pageEvents = null;
        this._pageCached = false;
        this._stateTransitions = 0;
        this._disconnects = 0;
        this._abortedTransportId = 0;
        this._reconnectAttemptsResetPending = false;
        this._config = Object.assign(Object.assign({}, defaults), options);
        this._configure();
        if (this._debugEnabled) {
            this.on('state', (ctx) => {
                this._debug('client state', ctx.oldState, '->', ctx.newState);
            });
            this.on('error', (ctx) => {
                this._debug('client error', ctx);
            });
        }
        else {
            // Avoid unhandled exception in EventEmitter for non-set error handler.
            this.on('error', function () { Function.prototype(); });
        }
    }
    /** newSubscription allocates new Subscription to a channel. Since server only allows
     * one subscription per channel per client this method throws if client already has
     * channel subscription in internal registry.
     * */
    newSubscription(channel, options) {
        if (this.getSubscription(channel) !== null) {
            throw new Error('Subscription to the channel ' + channel + ' already exists');
        }
        const sub = new Subscription(this, channel, options);
        this._subs[channel] = sub;
        return sub;
    }
    /** newMapSubscription allocates new map Subscription to a channel. Since server only allows
     * one subscription per channel per client this method throws if client already has
     * channel subscription in internal registry.
     *
     * Experimental. Requires Centrifugo >= v6.8.0. API may change in a backwards-incompatible
     * way in subsequent minor releases. */
    newMapSubscription(channel, options) {
        if (this.getSubscription(channel) !== null) {
            throw new Error('Subscription to the channel ' + channel + ' already exists');
        }
        const sub = new MapSubscription(this, channel, {
            token: options === null || options === void 0 ? void 0 : options.token,
            getToken: options === null || options === void 0 ? void 0 : options.getToken,
            data: options === null || options === void 0 ? void 0 : options.data,
            minResubscribeDelay: options === null || options === void 0 ? void 0 : options.minResubscribeDelay,
            maxResubscribeDelay: options === null || options === void 0 ? void 0 : options.maxResubscribeDelay,
            delta: options === null || options === void 0 ? void 0 : options.delta,
            tagsFilter: options === null || options === void 0 ? void 0 : options.tagsFilter,
            map: true,
            mapPageSize: options === null || options === void 0 ? void 0 : options.pageSize,
            mapUnrecoverableStrategy: options === null || options === void 0 ? void 0 : options.unrecoverableStrategy,
        });
        this._subs[channel] = sub;
        return sub;
    }
    /** Create a map subscription for observing individual connections (clients presence).
     * Each entry has key=clientId and contains full ClientInfo.
     * Use this to track connections per channel.
     * The channel should be the full presence channel name (e.g., "$clients:games").
     *
     * Experimental. Requires Centrifugo >= v6.8.0. API may change in a backwards-incompatible
     * way in subsequent minor releases. */
    newMapClientsSubscription(channel, options) {
        if (this.getSubscription(channel) !== null) {
            throw new Error('Subscription to the channel ' + channel + ' already exists');
        }
        const sub = new MapSubscription(this, channel, {
            token: options === null || options === void 0 ? void 0 : options.token,
            getToken: options === null || options === void 0 ? void 0 : options.getToken,
            data: options === null || options === void 0 ? void 0 : options.data,
            minResubscribeDelay: options === null || options === void 0 ? void 0 : options.minResubscribeDelay,
            maxResubscribeDelay: options === null || options === void 0 ? void 0 : options.maxResubscribeDelay,
            delta: options === null || options === void 0 ? void 0 : options.delta,
            tagsFilter: options === null || options === void 0 ? void 0 : options.tagsFilter,
            map: true,
            mapPresenceType: 2, // MAP_CLIENTS_PRESENCE
            mapPageSize: options === null || options === void 0 ? void 0 : options.pageSize,
            mapUnrecoverableStrategy: options === null || options === void 0 ? void 0 : options.unrecoverableStrategy,
        });
        this._subs[channel] = sub;
        return sub;
    }
    /** Create a map subscription for observing unique users (users presence).
     * Each entry has key=userId (no ClientInfo stored).
     * User entries expire via TTL, providing debounce for quick reconnects.
     * The channel should be the full presence channel name (e.g., "$users:games").
     *
     * Experimental. Requires Centrifugo >= v6.8.0. API may change in a backwards-incompatible
     * way in subsequent minor releases. */
    newMapUsersSubscription(channel, options) {
        if (this.getSubscription(channel) !== null) {
            throw new Error('Subscription to the channel ' + channel + ' already exists');
        }
        const sub = new MapSubscription(this, channel, {
            token: options === null || options === void 0 ? void 0 : options.token,
            getToken: options === null || options === void 0 ? void 0 : options.getToken,
            data: options === null || options === void 0 ? void 0 : options.data,
            minResubscribeDelay: options === null || options === void 0 ? void 0 : options.minResubscribeDelay,
            maxResubscribeDelay: options === null || options === void 0 ? void 0 : options.maxResubscribeDelay,
            delta: options === null || options === void 0 ? void 0 : options.delta,
            tagsFilter: options === null || options === void 0 ? void 0 : options.tagsFilter,
            map: true,
            mapPresenceType: 3, // MAP_USERS_PRESENCE
            mapPageSize: options === null || options === void 0 ? void 0 : options.pageSize,
            mapUnrecoverableStrategy: options === null || options === void 0 ? void 0 : options.unrecoverableStrategy,
        });
        this._subs[channel] = sub;
        return sub;
    }
    /** newSharedPollSubscription allocates a new shared poll Subscription to a channel.
     * Shared poll subscriptions use server-side polling to aggregate interest sets
     * and deliver periodic updates with version tracking. Track items after subscribing
     * using the track() method on the returned Subscription.
     *
     * Experimental. Requires Centrifugo >= v6.8.0. API may change in a backwards-incompatible
     * way in subsequent minor releases. */
    newSharedPollSubscription(channel, options) {
        if (this.getSubscription(channel) !== null) {
            throw new Error('Subscription to the channel ' + channel + ' already exists');
        }
        const sub = new SharedPollSubscription(this, channel, {
            token: options === null || options === void 0 ? void 0 : options.token,
            getToken: options === null || options === void 0 ? void 0 : options.getToken,
            data: options === null || options === void 0 ? void 0 : options.data,
            minResubscribeDelay: options === null || options === void 0 ? void 0 : options.minResubscribeDelay,
            maxResubscribeDelay: options === null || options === void 0 ? void 0 : options.maxResubscribeDelay,
            delta: options === null || options === void 0 ? void 0 : options.delta,
            sharedPoll: true,
            sharedPollGetSignature: options === null || options === void 0 ? void 0 : options.getSignature,
        });
        this._subs[channel] = sub;
        return sub;
    }
    /** getSubscription returns Subscription if it's registered in the internal
     * registry or null. */
    getSubscription(channel) {
        return this._getSub(channel);
    }
    /** Get a map subscription by channel. */
    getMapSubscription(channel) {
        return this._getSub(channel);
    }
    /** Get a shared poll subscription by channel. */
    getSharedPollSubscription(channel) {
        return this._getSub(channel);
    }
    /** removeSubscription allows removing Subcription from the internal registry. */
    removeSubscription(sub) {
        if (!sub) {
            return;
        }
        // A subscription removed before must not remove a newer one of its channel.
        if (this._subs[sub.channel] !== sub) {
            return;
        }
        // Removed before its unsubscribed event: a handler of it may create a new
        // subscription of the channel, and must not subscribe this one again.
        delete this._subs[sub.channel];
        // @ts-ignore – we are hiding some symbols from public API autocompletion.
        sub._removed = true;
        if (sub.state !== SubscriptionState.Unsubscribed) {
            sub.unsubscribe();
        }
        this._recordRemovedUnsubscribe(sub);
    }
    /** Remove a map subscription. */
    removeMapSubscription(sub) {
        this.removeSubscription(sub);
    }
    /** Remove a shared poll subscription. */
    removeSharedPollSubscription(sub) {
        this.removeSubscription(sub);
    }
    /** Get a map with all current client-side subscriptions. */
    subscriptions() {
        return this._subs;
    }
    /** Get all map subscriptions. */
    mapSubscriptions() {
        const result = {};
        for (const [ch, sub] of Object.entries(this._subs)) {
            if (sub.type === 'map')
                result[ch] = sub;
        }
        return result;
    }
    /** Get all shared poll subscriptions. */
    sharedPollSubscriptions() {
        const result = {};
        for (const [ch, sub] of Object.entries(this._subs)) {
            if (sub.type === 'shared_poll')
                result[ch] = sub;
        }
        return result;
    }
    /** ready returns a Promise which resolves upon client goes to Connected
     * state and rejects in case of client goes to Disconnected or Failed state.
     * Users can provide optional timeout in milliseconds. */
    ready(timeout) {
        return __awaiter(this, void 0, void 0, function* () {
            switch (this.state) {
                case State.Disconnected:
                    throw { code: errorCodes.clientDisconnected, message: 'client disconnected' };
                case State.Connected:
                    return;
                default:
                    return new Promise((resolve, reject) => {
                        const id = this._nextPromiseId();
                        const ctx = { resolve, reject };
                        if (timeout) {
                            ctx.timeout = setTimeout(() => {
                                // A call that gave up waiting leaves no waiter behind.
                                delete this._promises[id];
                                reject({ code: errorCodes.timeout, message: 'timeout' });
                            }, timeout);
                        }
                        this._promises[id] = ctx;
                    });
            }
        });
    }
    /** connect to a server. */
    connect() {
        if (this._isConnected()) {
            this._debug('connect called when already connected');
            return;
        }
        if (this._isConnecting()) {
            this._debug('connect called when already connecting');
            return;
        }
        this._debug('connect called');
        // Throws for a configuration no retry can fix, before the state changes.
        this._validateTransportConfig();
        this._reconnectAttempts = 0;
        this._startConnecting();
    }
    /** disconnect from a server. */
    disconnect() {
        this._disconnect(disconnectedCodes.disconnectCalled, 'disconnect called', false);
    }
    /** setToken allows setting connection token. Or resetting used token to be empty.  */
    setToken(token) {
        this._token = token;
        if (this._config.getToken === null) {
            // The token expired, and the app set a new one: without getToken there is no
            // other way to get it, so the next attempt uses it instead of failing on a
            // configuration error. With getToken, the next attempt still gets a new token:
            // the one set meanwhile may be the expired one.
            this._refreshRequired = false;
        }
    }
    /** setData allows setting connection data. This only affects the next connection attempt,
     * not the current one. Note that if getData callback is configured, it will override
     * this value during reconnects. */
    setData(data) {
        this._data = data;
    }
    /** setHeaders allows setting connection emulated headers. */
    setHeaders(headers) {
        this._config.headers = headers;
    }
    /** send asynchronous data to a server (without any response from a server
     * expected, see rpc method if you need response). */
    send(data) {
        return __awaiter(this, void 0, void 0, function* () {
            const cmd = {
                send: {
                    data
                }
            };
            yield this._methodCall();
            const sent = this._transportSendCommands([cmd]); // can send message to server without id set
            if (!sent) {
                throw this._createErrorObject(errorCodes.transportWriteError, 'transport write error');
            }
        });
    }
    /** rpc to a server - i.e. a call which waits for a response with data. */
    rpc(method, data) {
        return __awaiter(this, void 0, void 0, function* () {
            const cmd = {
                rpc: {
                    method,
                    data
                }
            };
            yield this._methodCall();
            const result = yield this._callPromise(cmd, (reply) => reply.rpc);
            return {
                data: result.data
            };
        });
    }
    /** publish data to a channel. */
    publish(channel, data) {
        return __awaiter(this, void 0, void 0, function* () {
            const cmd = {
                publish: {
                    channel,
                    data
                }
            };
            yield this._methodCall();
            yield this._callPromise(cmd, () => ({}));
            return {};
        });
    }
    /** Publish data to a key in a map channel without holding a MapSubscription.
     * Use this when you need to write to a map channel from outside a subscription
     * context (e.g. a standalone publisher). When you already hold a MapSubscription,
     * prefer `sub.publish(key, data)` instead — it enforces the method-call guard and
     * applies debounce configuration. */
    mapPublish(channel, key, data) {
        return __awaiter(this, void 0, void 0, function* () {
            const cmd = {
                publish: { channel, type: 1, key, data }
            };
            yield this._methodCall();
            yield this._callPromise(cmd, () => ({}));
            return {};
        });
    }
    /** Remove a key from a map channel without holding a MapSubscription.
     * Use this when you need to remove a key from outside a subscription context.
     * When you already hold a MapSubscription, prefer `sub.remove(key)` instead —
     * it enforces the method-call guard and cancels any pending debounced publish. */
    mapRemove(channel, key) {
        return __awaiter(this, void 0, void 0, function* () {
            const cmd = {
                publish: { channel, type: 1, key, removed: true }
            };
            yield this._methodCall();
            yield this._callPromise(cmd, () => ({}));
            return {};
        });
    }
    /** history for a channel. By default it does not return publications (only current
     *  StreamPosition data) – provide an explicit limit > 0 to load publications.*/
    history(channel, options) {
        return __awaiter(this, void 0, void 0, function* () {
            const cmd = {
                history: this._getHistoryRequest(channel, options)
            };
            yield this._methodCall();
            const result = yield this._callPromise(cmd, (reply) => reply.history);
            const publications = [];
            if (result.publications) {
                for (let i = 0; i < result.publications.length; i++) {
                    publications.push(this._getPublicationContext(channel, result.publications[i]));
                }
            }
            return {
                publications,
                epoch: result.epoch || '',
                offset: toOffset(result.offset)
            };
        });
    }
    /** presence for a channel. */
    presence(channel) {
        return __awaiter(this, void 0, void 0, function* () {
            const cmd = {
                presence: {
                    channel
                }
            };
            yield this._methodCall();
            const result = yield this._callPromise(cmd, (reply) => reply.presence);
            const clients = result.presence;
            for (const clientId in clients) {
                if (Object.prototype.hasOwnProperty.call(clients, clientId)) {
                    const rawClient = clients[clientId];
                    const connInfo = rawClient['conn_info'];
                    const chanInfo = rawClient['chan_info'];
                    if (connInfo) {
                        rawClient.connInfo = connInfo;
                    }
                    if (chanInfo) {
                        rawClient.chanInfo = chanInfo;
                    }
                }
            }
            return { clients };
        });
    }
    presenceStats(channel) {
        return __awaiter(this, void 0, void 0, function* () {
            const cmd = {
                'presence_stats': {
                    channel
                }
            };
            yield this._methodCall();
            const result = yield this._callPromise(cmd, (reply) => {
                return reply.presence_stats;
            });
            return {
                numUsers: result.num_users,
                numClients: result.num_clients
            };
        });
    }
    /** start command batching (collect into temporary buffer without sending to a server)
     * until stopBatching called.*/
    startBatching() {
        // start collecting messages without sending them to Centrifuge until flush
        // method called
        this._batching = true;
    }
    /** stop batching commands and flush collected commands to the
     * network (all in one request/frame).*/
    stopBatching() {
        const self = this;
        // Why so nested? Two levels here requred to deal with promise resolving queue.
        // In Subscription case we wait 2 futures before sending data to connection.
        // Otherwise _batching becomes false before batching decision has a chance to be executed.
        Promise.resolve().then(function () {
            Promise.resolve().then(function () {
                self._batching = false;
                self._flush();
            });
        });
    }
    _debug(...args) {
        if (!this._debugEnabled) {
            return;
        }
        log('debug', args);
    }
    _codecName() {
        return this._codec.name();
    }
    /** @internal */
    _formatOverride() {
        return;
    }
    _configure() {
        if (!('Promise' in globalThis)) {
            throw new Error('Promise polyfill required');
        }
        if (!this._endpoint) {
            throw new Error('endpoint configuration required');
        }
        if (this._config.token !== null) {
            this._token = this._config.token;
        }
        if (this._config.data !== null) {
            this._data = this._config.data;
        }
        this._codec = new JsonCodec();
        this._formatOverride();
        if (this._config.debug === true || localStorageItem('centrifuge.debug')) {
            this._debugEnabled = true;
        }
        this._debug('config', this._config);
        if (typeof this._endpoint === 'string') ;
        else if (Array.isArray(this._endpoint)) {
            this._transports = this._endpoint;
            this._emulation = true;
            for (const i in this._transports) {
                if (this._transports.hasOwnProperty(i)) {
                    const transportConfig = this._transports[i];
                    if (!transportConfig.endpoint || !transportConfig.transport) {
                        throw new Error('malformed transport configuration');
                    }
                    const transportName = transportConfig.transport;
                    if (['websocket', 'http_stream', 'sse', 'sockjs', 'webtransport'].indexOf(transportName) < 0) {
                        throw new Error('unsupported transport name: ' + transportName);
                    }
                }
            }
        }
        else {
            throw new Error('unsupported url configuration type: only string or array of objects are supported');
        }
    }
    // Returns the number of the transition made, or 0 if the client already was in newState.
    _setState(newState) {
        if (this.state !== newState) {
            this._reconnecting = false;
            const oldState = this.state;
            this.state = newState;
            const transition = ++this._stateTransitions;
            // Keep network listeners in sync with the state before emitting: a 'state'
            // handler may call connect() or disconnect() synchronously.
            if (newState === State.Connecting) {
                this._setNetworkEvents();
                this._setPageEvents();
            }
            else if (newState === State.Disconnected) {
                this._clearNetworkEvents();
                this._clearPageEvents();
            }
            this.emit('state', { newState, oldState });
            return transition;
        }
        return 0;
    }
    // Whether an event handler made another state transition after the given one
    // (as returned by _setState), so that the given one is outdated.
    _transitionSuperseded(transition) {
        return transition !== 0 && this._stateTransitions !== transition;
    }
    _isDisconnected() {
        return this.state === State.Disconnected;
    }
    _isConnecting() {
        return this.state === State.Connecting;
    }
    _isConnected() {
        return this.state === State.Connected;
    }
    _nextCommandId() {
        return ++this._commandId;
    }
    _setNetworkEvents() {
        if (this._networkEvents !== null) {
            return;
        }
        let eventTarget = null;
        if (this._config.networkEventTarget !== null) {
            eventTarget = this._config.networkEventTarget;
        }
        else if (typeof globalThis.addEventListener !== 'undefined') {
            eventTarget = globalThis;
        }
        if (eventTarget) {
            const onOffline = () => {
                this._debug('offline event triggered');
                if (this.state === State.Connected || this.state === State.Connecting) {
                    // Set first: a handler of the events emitted by the disconnect may call
                    // disconnect(), which resets it.
                    this._deviceWentOffline = true;
                    this._disconnect(connectingCodes.transportClosed, 'transport closed', true);
                }
            };
            const onOnline = () => {
                this._debug('online event triggered');
                const wentOffline = this._deviceWentOffline;
                this._deviceWentOffline = false;
                if (this.state !== State.Connecting) {
                    return;
                }
                if (wentOffline && !this._transportClosed) {
                    // A reconnect attempt opened a transport while the device was offline.
                    // Mobile Safari may never issue the close callback for it, so abort it
                    // explicitly and start over. The transport ID changes, so a close
                    // callback issued later is ignored. The rejection of a connect command
                    // still pending on it is not an error to report (see _sendConnect).
                    this._abortedTransportId = this._transportId;
                    this._disconnect(connectingCodes.transportClosed, 'transport closed', true);
                }
                this._clearReconnectTimeout();
                this._startReconnecting();
            };
            eventTarget.addEventListener('offline', onOffline);
            eventTarget.addEventListener('online', onOnline);
            this._networkEvents = { target: eventTarget, onOffline, onOnline };
        }
    }
    // The online listener drives reconnect, so listeners stay until the client is
    // disconnected; removing them then lets a disconnected client be garbage-collected.
    _clearNetworkEvents() {
        if (this._networkEvents === null) {
            return;
        }
        const { target, onOffline, onOnline } = this._networkEvents;
        if (!isFunction(target.removeEventListener)) {
            this._debug('network event target has no removeEventListener, listeners kept');
            return;
        }
        target.removeEventListener('offline', onOffline);
        target.removeEventListener('online', onOnline);
        this._networkEvents = null;
    }
    // A page entering the back/forward cache is frozen, but the browser may keep its
    // socket open: the server then sees a client that stopped answering pings. So the
    // transport is closed when the page is hidden into the cache, and the client
    // reconnects as soon as the page is restored from it. The reconnect is scheduled
    // as usual too: its timer does not run in a frozen page, and it still reconnects
    // a page which was not frozen, or was restored without a pageshow event.
    _setPageEvents() {
        if (this._pageEvents !== null) {
            return;
        }
        let eventTarget = null;
        if (this._config.pageEventTarget !== null) {
            eventTarget = this._config.pageEventTarget;
        }
        else if (typeof globalThis.addEventListener !== 'undefined') {
            eventTarget = globalThis;
        }
        if (!eventTarget) {
            return;
        }
        const onPageHide = (e) => {
            if (!e.persisted) {
                return;
            }
            this._debug('page entered back/forward cache');
            if (this.state === State.Connected || this.state === State.Connecting) {
                // Set first: a handler of the events emitted by the disconnect may call
                // disconnect(), which resets it.
                this._pageCached = true;
                this._disconnect(connectingCodes.transportClosed, 'page entered back/forward cache', true);
            }
        };
        const onPageShow = (e) => {
            if (!e.persisted) {
                return;
            }
            this._debug('page restored from back/forward cache');
            const cached = this._pageCached;
            this._pageCached = false;
            if (!cached || this.state !== State.Connecting) {
                return;
            }
            this._clearReconnectTimeout();
            this._startReconnecting();
        };
        eventTarget.addEventListener('pagehide', onPageHide);
        eventTarget.addEventListener('pageshow', onPageShow);
        this._pageEvents = { target: eventTarget, onPageHide, onPageShow };
    }
    // Removed once the client is disconnected, like the network listeners.
    _clearPageEvents() {
        if (this._pageEvents === null) {
            return;
        }
        const { target, onPageHide, onPageShow } = this._pageEvents;
        if (!isFunction(target.removeEventListener)) {
            this._debug('page event target has no removeEventListener, listeners kept');
            return;
        }
        target.removeEventListener('pagehide', onPageHide);
        target.removeEventListener('pageshow', onPageShow);
        this._pageEvents = null;
    }
    _getReconnectDelay() {
        const delay = backoff(this._reconnectAttempts, this._config.minReconnectDelay, this._config.maxReconnectDelay);
        this._reconnectAttempts += 1;
        return delay;
    }
    // See _connectResponse: an emulation connection resets the backoff once it
    // proved usable.
    _resetReconnectAttemptsIfPending() {
        if (this._reconnectAttemptsResetPending) {
            this._reconnectAttemptsResetPending = false;
            this._reconnectAttempts = 0;
        }
    }
    _clearOutgoingRequests() {
        // fire errbacks of registered outgoing calls.
        for (const id in this._callbacks) {
            if (this._callbacks.hasOwnProperty(id)) {
                const callbacks = this._callbacks[id];
                clearTimeout(callbacks.timeout);
                const errback = callbacks.errback;
                if (!errback) {
                    continue;
                }
                errback({ error: this._createErrorObject(errorCodes.connectionClosed, 'connection closed') });
            }
        }
        this._callbacks = {};
    }
    _clearConnectedState() {
        this._client = null;
        this._clearServerPingTimeout();
        this._clearRefreshTimeout();
        // fire events for client-side subscriptions.
        for (const channel in this._subs) {
            if (!this._subs.hasOwnProperty(channel)) {
                continue;
            }
            const sub = this._subs[channel];
            if (sub.state === SubscriptionState.Subscribed) {
                // @ts-ignore – we are hiding some symbols from public API autocompletion.
                sub._setSubscribing(subscribingCodes.transportClosed, 'transport closed');
            }
        }
        // fire events for server-side subscriptions, once per subscribed period.
        for (const channel in this._serverSubs) {
            if (this._serverSubs.hasOwnProperty(channel) && this._serverSubs[channel].subscribed) {
                this._serverSubs[channel].subscribed = false;
                this.emit('subscribing', { channel: channel });
            }
        }
    }
    _handleWriteError(commands) {
        for (const command of commands) {
            const id = command.id;
            if (!(id in this._callbacks)) {
                continue;
            }
            const callbacks = this._callbacks[id];
            clearTimeout(this._callbacks[id].timeout);
            delete this._callbacks[id];
            const errback = callbacks.errback;
            errback({ error: this._createErrorObject(errorCodes.transportWriteError, 'transport write error') });
        }
    }
    _transportSendCommands(commands) {
        if (!commands.length) {
            return true;
        }
        if (!this._transport) {
            return false;
        }
        try {
            this._transport.send(this._codec.encodeCommands(commands), this._session, this._node);
        }
        catch (e) {
            this._debug('error writing commands', e);
            this._handleWriteError(commands);
            return false;
        }
        return true;
    }
    _advanceTransportIndex() {
        this._currentTransportIndex++;
        if (this._currentTransportIndex >= this._transports.length) {
            this._triedAllTransports = true;
            this._currentTransportIndex = 0;
        }
    }
    // Transport dependencies from the config, or else from globals. An absent one
    // stays null, not undefined: supported() of sockjs, sse and http_stream only
    // checks `!== null`.
    _resolveTransportDeps() {
        let websocket;
        if (this._config.websocket !== null) {
            websocket = this._config.websocket;
        }
        else {
            if (!(typeof globalThis.WebSocket !== 'function' && typeof globalThis.WebSocket !== 'object')) {
                websocket = globalThis.WebSocket;
            }
        }
        let sockjs = null;
        if (this._config.sockjs !== null) {
            sockjs = this._config.sockjs;
        }
        else {
            if (typeof globalThis.SockJS !== 'undefined') {
                sockjs = globalThis.SockJS;
            }
        }
        let eventsource = null;
        if (this._config.eventsource !== null) {
            eventsource = this._config.eventsource;
        }
        else {
            if (typeof globalThis.EventSource !== 'undefined') {
                eventsource = globalThis.EventSource;
            }
        }
        let fetchFunc = null;
        if (this._config.fetch !== null) {
            fetchFunc = this._config.fetch;
        }
        else {
            if (typeof globalThis.fetch !== 'undefined') {
                fetchFunc = globalThis.fetch;
            }
        }
        let readableStream = null;
        if (this._config.readableStream !== null) {
            readableStream = this._config.readableStream;
        }
        else {
            if (typeof globalThis.ReadableStream !== 'undefined') {
                readableStream = globalThis.ReadableStream;
            }
        }
        return { websocket, sockjs, eventsource, fetchFunc, readableStream };
    }
    // Constructs a transport, without checking that it is supported.
    _createTransport(transportName, endpoint, deps) {
        switch (transportName) {
            case 'websocket':
                return new WebsocketTransport(endpoint, {
                    websocket: deps.websocket
                });
            case 'webtransport':
                return new WebtransportTransport(endpoint, {
                    webtransport: globalThis.WebTransport,
                    decoder: this._codec,
                    encoder: this._codec
                });
            case 'http_stream':
                return new HttpStreamTransport(endpoint, {
                    fetch: deps.fetchFunc,
                    readableStream: deps.readableStream,
                    emulationEndpoint: this._config.emulationEndpoint,
                    decoder: this._codec,
                    encoder: this._codec
                });
            case 'sse':
                return new SseTransport(endpoint, {
                    eventsource: deps.eventsource,
                    fetch: deps.fetchFunc,
                    emulationEndpoint: this._config.emulationEndpoint,
                });
            case 'sockjs':
                return new SockjsTransport(endpoint, {
                    sockjs: deps.sockjs,
                    sockjsOptions: this._config.sockjsOptions
                });
            default:
                throw new Error('unknown transport ' + transportName);
        }
    }
    // Throws for a configuration no retry can fix. Called from connect() before
    // the state changes, so the client stays disconnected, and before a token or
    // data is loaded, so it fails the same way with getToken or getData.
    _validateTransportConfig() {
        const deps = this._resolveTransportDeps();
        if (!this._emulation) {
            if (startsWith(this._endpoint, 'http')) {
                throw new Error('Provide explicit transport endpoints configuration in case of using HTTP (i.e. using array of TransportEndpoint instead of a single string), or use ws(s):// scheme in an endpoint if you aimed using WebSocket transport');
            }
            if (!this._createTransport('websocket', this._endpoint, deps).supported()) {
                throw new Error(websocketNotFound);
            }
            return;
        }
        for (const transportConfig of this._transports) {
            if (this._createTransport(transportConfig.transport, transportConfig.endpoint, deps).supported()) {
                return;
            }
        }
        throw new Error('no supported transport found');
    }
    _initializeTransport() {
        const deps = this._resolveTransportDeps();
        let selected = null;
        if (!this._emulation) {
            this._debug('client will use websocket');
            const candidate = this._createTransport('websocket', this._endpoint, deps);
            if (candidate.supported()) {
                selected = candidate;
            }
        }
        else {
            if (this._currentTransportIndex >= this._transports.length) {
                this._triedAllTransports = true;
                this._currentTransportIndex = 0;
            }
            for (let count = 0; count < this._transports.length; count++) {
                const transportConfig = this._transports[this._currentTransportIndex];
                this._debug('trying ' + transportConfig.transport + ' transport');
                const candidate = this._createTransport(transportConfig.transport, transportConfig.endpoint, deps);
                if (candidate.supported()) {
                    selected = candidate;
                    break;
                }
                this._debug(transportConfig.transport + ' transport not available');
                this._advanceTransportIndex();
            }
        }
        if (selected === null) {
            // connect() checked that a transport can be used, so a dependency went away
            // under a running client. A reconnect timer has no caller to throw to:
            // report it as a transport failure and retry.
            const message = this._emulation ? 'no supported transport found' : websocketNotFound;
            this._debug(message);
            this._disconnect(connectingCodes.transportClosed, 'transport closed', true);
            this.emit('error', {
                type: 'transport',
                error: {
                    code: errorCodes.transportClosed,
                    message: message
                }
            });
            return;
        }
        this._transport = selected;
        const self = this;
        const transport = this._transport;
        const transportId = this._nextTransportId();
        self._debug("id of transport", transportId);
        let wasOpen = false;
        const initialCommands = [];
        if (this._transport.emulation()) {
            const connectCommand = self._sendConnect(true);
            initialCommands.push(connectCommand);
        }
        this._transportClosed = false;
        // Fails an attempt that did not open in time or could not be initialized. It
        // does not wait for the transport's close callback: a transport may never
        // issue one, e.g. a replaced WebSocket whose close() does nothing.
        const failTransport = function (reason) {
            if (self._transportId != transportId) {
                self._debug('failure of non-actual transport', reason);
                return;
            }
            self._debug(transport.name(), 'transport failed:', reason);
            if (self._emulation && !self._transportWasOpen) {
                self._advanceTransportIndex();
            }
            // The teardown rejects a connect command pending on it: the transport error
            // below reports the failure, not a connect error too.
            self._abortedTransportId = transportId;
            // Closes the transport and clears the connect timeout.
            self._disconnect(connectingCodes.transportClosed, 'transport closed', true);
            self.emit('error', {
                type: 'transport',
                error: {
                    code: errorCodes.transportClosed,
                    message: reason
                },
                transport: transport.name()
            });
        };
        this._clearConnectTimeout();
        const connectDue = Date.now() + this._config.timeout;
        this._connectTimeout = setTimeout(function () {
            // The transport may have opened already, its open callback not run yet, e.g.
            // when a suspended process resumes: let it run first, as for a call (see
            // _registerCall). The open callback clears this timeout.
            const late = Date.now() - connectDue >= lateCallTimer;
            self._connectTimeout = setTimeout(function () {
                self._connectTimeout = null;
                failTransport('connect timeout');
            }, late ? lateCallGrace : 0);
        }, this._config.timeout);
        const callbacks = {
            onOpen: function () {
                if (self._transportId != transportId) {
                    self._debug('open callback from non-actual transport');
                    try {
                        transport.close();
                    }
                    catch (e) {
                        // E.g. a replaced WebSocket without a working close().
                        self._debug('error closing transport', e);
                    }
                    return;
                }
                // Only after the check: the connect timeout belongs to the current attempt.
                self._clearConnectTimeout();
                wasOpen = true;
                self._debug(transport.subName(), 'transport open');
                if (transport.emulation()) {
                    return;
                }
                self._transportIsOpen = true;
                // A socket that opened keeps its transport, as in 5.7.4: a slow first connect
                // reply must not move the client to a fallback transport for good.
                self._transportWasOpen = true;
                self.startBatching();
                try {
                    self._sendConnect(false);
                    self._sendSubscribeCommands();
                }
                catch (e) {
                    // E.g. thrown by an app callback of a subscription: the commands collected
                    // still go out, instead of staying batched for the next transport.
                    self._reportDispatchError(e);
                }
                finally {
                    self.stopBatching();
                }
                //@ts-ignore must be used only for debug and test purposes. Exposed only for non-emulation transport.
                self.emit('__centrifuge_debug:connect_frame_sent', {});
            },
            onError: function (e) {
                if (self._transportId != transportId) {
                    self._debug('error callback from non-actual transport');
                    return;
                }
                self._debug('transport level error', e);
            },
            onClose: function handleClose(closeEvent, dispatched) {
                if (self._transportId != transportId) {
                    self._debug('close callback from non-actual transport');
                    return;
                }
                if (!dispatched && (transport.emulation() || transport.name() === 'webtransport')) {
                    // A stream may end in the same task as the data read before it, e.g. the
                    // server's disconnect push written before it closes the connection: that
                    // data is dispatched first, as a websocket's messages are before its close
                    // event. A disconnect push ends this transport, and this callback with it.
                    self._dispatchPromise.then(() => handleClose(closeEvent, true));
                    return;
                }
                self._clearConnectTimeout();
                self._debug(transport.subName(), 'transport closed');
                self._transportClosed = true;
                self._transportIsOpen = false;
                let reason = 'connection closed';
                let needReconnect = true;
                let code = 0;
                if (closeEvent && 'code' in closeEvent && closeEvent.code) {
                    code = closeEvent.code;
                }
                if (closeEvent && closeEvent.reason) {
                    try {
                        const advice = JSON.parse(closeEvent.reason);
                        reason = advice.reason;
                        needReconnect = advice.reconnect;
                    }
                    catch (e) {
                        reason = closeEvent.reason;
                        if ((code >= 3500 && code < 4000) || (code >= 4500 && code < 5000)) {
                            needReconnect = false;
                        }
                    }
                }
                if (code < 3000) {
                    if (code === 1009) {
                        code = disconnectedCodes.messageSizeLimit;
                        reason = 'message size limit exceeded';
                        needReconnect = false;
                    }
                    else {
                        code = connectingCodes.transportClosed;
                        reason = 'transport closed';
                    }
                    if (self._emulation && !self._transportWasOpen) {
                        self._advanceTransportIndex();
                    }
                }
                else {
                    // Codes >= 3000 are sent from a server application level.
                    self._transportWasOpen = true;
                }
                const teardown = function () {
                    self._reconnecting = false;
                    self._disconnect(code, reason, needReconnect);
                };
                if (self._isConnecting() && !wasOpen) {
                    // The teardown rejects a connect command pending on it (emulation): this
                    // transport error reports the failure, not a connect error too.
                    self._abortedTransportId = transportId;
                    self._emitError({
                        type: 'transport',
                        error: {
                            code: errorCodes.transportClosed,
                            message: 'transport closed'
                        },
                        transport: transport.name()
                    }, teardown);
                }
                else {
                    teardown();
                }
            },
            onMessage: function (data) {
                if (self._transportId != transportId) {
                    // A frame from a transport that was already closed or replaced.
                    self._debug('message from non-actual transport');
                    return;
                }
                self._dataReceived(data, transportId);
            }
        };
        // A transport that fails to initialize, e.g. a socket constructor throwing on
        // a malformed URL or on an insecure one from a secure page, issues no close
        // callback either.
        const onInitializeError = function (e) {
            self._debug('error initializing transport', e);
            failTransport(e instanceof Error ? e.message : String(e));
        };
        let initialized;
        try {
            // Encoded here: commands the codec can't encode, e.g. connect data with a BigInt,
            // fail the attempt as a transport failing to initialize, not connect().
            initialized = transport.initialize(this._codecName(), callbacks, this._codec.encodeCommands(initialCommands));
        }
        catch (e) {
            onInitializeError(e);
            return;
        }
        if (initialized && isFunction(initialized.then)) {
            // WebTransport initializes asynchronously.
            initialized.then(null, onInitializeError);
        }
        //@ts-ignore must be used only for debug and test purposes.
        self.emit('__centrifuge_debug:transport_initialized', {});
    }
    _sendConnect(skipSending) {
        const connectCommand = this._constructConnectCommand();
        const self = this;
        // A teardown rejects the pending command, and the rejection is processed after
        // it: a newer attempt may have started by then, which must not be torn down.
        const transportId = this._transportId;
        const token = this._token;
        // An exception while handling the reply stops the client (see _dispatchFailed).
        // next() is still called, so replies of a later connection aren't blocked.
        this._call(connectCommand, skipSending).then(resolveCtx => {
            try {
                self._connectResponse(resolveCtx.reply.connect);
            }
            catch (err) {
                self._dispatchFailed(err);
            }
            finally {
                if (resolveCtx.next) {
                    resolveCtx.next();
                }
            }
        }, rejectCtx => {
            try {
                if (transportId === self._abortedTransportId) {
                    self._debug('connect command of a transport aborted by the client rejected');
                }
                else {
                    // An error in a reply comes with next(): a rejection by a timeout, a write
                    // error or a teardown doesn't.
                    self._connectError(rejectCtx.error, self._transportId !== transportId, rejectCtx.next !== undefined, token);
                }
            }
            catch (err) {
                self._rejectionFailed(err, rejectCtx);
            }
            finally {
                if (rejectCtx.next) {
                    rejectCtx.next();
                }
            }
        });
        return connectCommand;
    }
    _startReconnecting() {
        this._debug('start reconnecting');
        if (!this._isConnecting()) {
            this._debug('stop reconnecting: client not in connecting state');
            return;
        }
        if (this._reconnecting) {
            this._debug('reconnect already in progress, return from reconnect routine');
            return;
        }
        if (this._transportClosed === false) {
            this._debug('waiting for transport close');
            return;
        }
        this._reconnecting = true;
        // A disconnect while the token/data is loading aborts this attempt (a new one
        // is scheduled by the disconnect), so the continuations below must not act on
        // it. Not the transport id: _initializeTransport changes it too, and its
        // exceptions must still reach the error handlers below.
        const disconnects = this._disconnects;
        const emptyToken = this._token === '';
        const needTokenRefresh = this._refreshRequired || (emptyToken && this._config.getToken !== null);
        // Whether the token or data promise resolved: an error caught after that was thrown
        // by the continuation, e.g. by an event handler, and must not be lost.
        let tokenResolved = false;
        let dataResolved = false;
        if (!needTokenRefresh) {
            if (this._config.getData) {
                this._getData().then(data => {
                    dataResolved = true;
                    if (this._attemptAborted(disconnects)) {
                        return;
                    }
                    this._data = data;
                    this._initializeTransport();
                })
                    .catch(e => this._handleGetDataError(e, disconnects, dataResolved));
            }
            else {
                this._initializeTransport();
            }
            return;
        }
        const self = this;
        this._getToken().then(function (token) {
            tokenResolved = true;
            if (self._attemptAborted(disconnects)) {
                return;
            }
            if (token == null || token == undefined) {
                self._failUnauthorized();
                return;
            }
            self._token = token;
            self._debug('connection token refreshed');
            if (self._config.getData) {
                self._getData().then(function (data) {
                    dataResolved = true;
                    if (self._attemptAborted(disconnects)) {
                        return;
                    }
                    self._data = data;
                    self._initializeTransport();
                })
                    .catch(e => self._handleGetDataError(e, disconnects, dataResolved));
            }
            else {
                self._initializeTransport();
            }
        }).catch(function (e) {
            if (self._attemptAborted(disconnects)) {
                if (tokenResolved) {
                    self._reportDispatchError(e);
                }
                return;
            }
            if (e instanceof UnauthorizedError) {
                self._failUnauthorized();
                return;
            }
            self._emitError({
                'type': 'connectToken',
                'error': {
                    code: errorCodes.clientConnectToken,
                    message: e !== undefined ? e.toString() : ''
                }
            }, () => {
                const delay = self._getReconnectDelay();
                self._debug('error on getting connection token, reconnect after ' + delay + ' milliseconds', e);
                self._reconnecting = false;
                self._reconnectTimeout = setTimeout(() => {
                    self._startReconnecting();
                }, delay);
            });
        });
    }
    // Emits an error event, then runs the continuation: not when a handler disconnected
    // the client (or threw, which disconnects it), maybe to connect again, whose new
    // attempt the continuation must not touch.
    _emitError(ctx, continuation) {
        const disconnects = this._disconnects;
        try {
            this.emit('error', ctx);
        }
        finally {
            if (this._disconnects === disconnects) {
                continuation();
            }
        }
    }
    _attemptAborted(disconnects) {
        return !this._isConnecting() || this._disconnects !== disconnects;
    }
    // resolved: the data promise resolved, so the error was thrown by its continuation.
    _handleGetDataError(e, disconnects, resolved) {
        if (this._attemptAborted(disconnects)) {
            if (resolved) {
                // E.g. by an event handler of the teardown that ended the attempt.
                this._reportDispatchError(e);
            }
            return;
        }
        if (e instanceof UnauthorizedError) {
            this._failUnauthorized();
            return;
        }
        this._emitError({
            type: 'connectData',
            error: {
                code: errorCodes.badConfiguration,
                message: (e === null || e === void 0 ? void 0 : e.toString()) || ''
            }
        }, () => {
            const delay = this._getReconnectDelay();
            this._debug('error on getting connect data, reconnect after ' + delay + ' milliseconds', e);
            this._reconnecting = false;
            this._reconnectTimeout = setTimeout(() => {
                this._startReconnecting();
            }, delay);
        });
    }
    // stale: the error belongs to a transport that was already closed. It is still
    // reported, but must not tear down the current connection attempt.
    // replied: the server returned the error in a reply, so the transport works.
    // token: the token the connect command carried.
    _connectError(err, stale, replied, token) {
        if (this.state !== State.Connecting) {
            return;
        }
        // Token expired: the next attempt gets a new one, unless the app set a new one
        // meanwhile (see setToken).
        if (err.code === 109 && token === this._token) {
            this._refreshRequired = true;
        }
        if (err.code < 100 || err.temporary === true || err.code === 109) {
            this._emitError({
                'type': 'connect',
                'error': err
            }, () => {
                if (stale) {
                    return;
                }
                if (replied) {
                    // The transport reached the server: retry it after the reconnect delay, not
                    // at once with the next transport as for one that failed to open. An
                    // emulation transport is otherwise marked open only by a connect reply.
                    this._transportWasOpen = true;
                }
                if (!replied && this._emulation && !this._transportWasOpen) {
                    // A handshake the server never answered, e.g. timed out, moves on to the next
                    // transport before any reply, but not after a socket opened (see onOpen). For
                    // other failures the transport's close callback does that, but it is ignored
                    // after the teardown below.
                    this._advanceTransportIndex();
                }
                this._debug('closing transport due to connect error');
                this._disconnect(err.code, err.message, true);
            });
        }
        else if (!stale) {
            this._disconnect(err.code, err.message, false);
        }
    }
    _scheduleReconnect() {
        if (!this._isConnecting()) {
            return;
        }
        let isInitialHandshake = false;
        if (this._emulation && !this._transportWasOpen && !this._triedAllTransports) {
            isInitialHandshake = true;
        }
        // The first round over the transports doesn't count towards the backoff.
        const delay = isInitialHandshake ? 0 : this._getReconnectDelay();
        this._debug('reconnect after ' + delay + ' milliseconds');
        this._clearReconnectTimeout();
        this._reconnectTimeout = setTimeout(() => {
            this._startReconnecting();
        }, delay);
    }
    _constructConnectCommand() {
        const req = {};
        if (this._token) {
            req.token = this._token;
        }
        if (this._data) {
            req.data = this._data;
        }
        if (this._config.name) {
            req.name = this._config.name;
        }
        if (this._config.version) {
            req.version = this._config.version;
        }
        if (Object.keys(this._config.headers).length > 0) {
            req.headers = this._config.headers;
        }
        const subs = {};
        let hasSubs = false;
        for (const channel in this._serverSubs) {
            if (this._serverSubs.hasOwnProperty(channel) && this._serverSubs[channel].recoverable) {
                hasSubs = true;
                const sub = {
                    'recover': true
                };
                // A publication being dispatched counts as delivered: a connect command built
                // from its handler recovers after it, while the stored position still holds
                // the previous one until that handler returned (see _handlePublication).
                const pending = this._pendingServerSubOffsets[channel];
                const offset = pending !== undefined && pending !== null ? pending : this._serverSubs[channel].offset;
                if (offset) {
                    sub['offset'] = offset;
                }
                if (this._serverSubs[channel].epoch) {
                    sub['epoch'] = this._serverSubs[channel].epoch;
                }
                subs[channel] = sub;
            }
        }
        if (hasSubs) {
            req.subs = subs;
        }
        return {
            connect: req
        };
    }
    _getHistoryRequest(channel, options) {
        const req = {
            channel: channel
        };
        if (options !== undefined) {
            if (options.since) {
                req.since = {
                    offset: options.since.offset
                };
                if (options.since.epoch) {
                    req.since.epoch = options.since.epoch;
                }
            }
            if (options.limit !== undefined) {
                req.limit = options.limit;
            }
            if (options.reverse === true) {
                req.reverse = true;
            }
        }
        return req;
    }
    _methodCall() {
        if (this._isConnected()) {
            return Promise.resolve();
        }
        return new Promise((res, rej) => {
            const id = this._nextPromiseId();
            const timeout = setTimeout(() => {
                delete this._promises[id];
                rej({ code: errorCodes.timeout, message: 'timeout' });
            }, this._config.timeout);
            this._promises[id] = {
                timeout: timeout,
                resolve: res,
                reject: rej
            };
        });
    }
    _callPromise(cmd, resultCB) {
        return new Promise((resolve, reject) => {
            this._call(cmd, false).then((resolveCtx) => {
                var _a;
                try {
                    resolve(resultCB(resolveCtx.reply));
                }
                catch (e) {
                    reject(e);
                }
                finally {
                    (_a = resolveCtx.next) === null || _a === void 0 ? void 0 : _a.call(resolveCtx);
                }
            }, (rejectCtx) => {
                var _a;
                reject(rejectCtx.error);
                (_a = rejectCtx.next) === null || _a === void 0 ? void 0 : _a.call(rejectCtx);
            });
        });
    }
    _dataReceived(data, transportId = this._transportId) {
        let replies;
        try {
            replies = this._codec.decodeReplies(data);
        }
        catch (e) {
            // Not Centrifugo data, e.g. an HTML page from a captive portal or a
            // misconfigured proxy. Close the transport so the client reconnects,
            // instead of throwing from the transport callback.
            this._debug('error decoding received data', e);
            // Tear the connection down at once, as the close callback of the transport
            // would: the data read with this, e.g. the next lines of an http_stream chunk,
            // must not be dispatched, and the close callback comes later, or never for a
            // transport whose close() throws.
            if (this._emulation && !this._transportWasOpen) {
                this._advanceTransportIndex();
            }
            this._disconnect(connectingCodes.transportClosed, 'transport closed', true);
            return;
        }
        // Only data from the server proves the connection alive: not e.g. blank keep-alive
        // lines an intermediary writes.
        if (this._serverPing > 0 && replies.length > 0) {
            this._waitServerPing();
        }
        // We have to guarantee order of events in replies processing - i.e. start processing
        // next reply only when we finished processing of current one. Without syncing things in
        // this way we could get wrong publication events order as reply promises resolve
        // on next loop tick so for loop continues before we finished emitting all reply events.
        this._dispatchPromise = this._dispatchPromise.then(() => new Promise(resolve => {
            this._dispatchSynchronized(replies, resolve, transportId);
        }));
    }
    _dispatchSynchronized(replies, finishDispatch, transportId) {
        let p = Promise.resolve();
        for (const i in replies) {
            if (replies.hasOwnProperty(i)) {
                p = p.then(() => {
                    // The transport was closed or replaced while this frame waited or was
                    // being dispatched (e.g. disconnect() called from an event handler):
                    // its remaining replies are outdated.
                    if (this._transportId !== transportId) {
                        return;
                    }
                    return this._dispatchReply(replies[i]);
                }).catch(err => {
                    // The exception stops the client, which skips the remaining replies. The
                    // chain still settles: frames of a later connection wait for this one.
                    this._dispatchFailed(err);
                });
            }
        }
        p.then(() => {
            finishDispatch();
        });
    }
    /** @internal Every event reaches the application's handlers through here. */
    emit(event, ...args) {
        try {
            return EventEmitter.prototype.emit.call(this, event, ...args);
        }
        catch (e) {
            this._handlerFailed(e);
            return true;
        }
    }
    // An exception escaping an application event handler. The SDK can't know what the
    // handler left undone, so it fails loudly instead of going on as if nothing
    // happened: the client disconnects without reconnecting, and the exception is
    // re-raised as an unhandled rejection. The SDK's own work continues as if the
    // handler had returned, as for a handler calling disconnect(), so no state change
    // is left half done.
    /** @internal */
    _handlerFailed(err) {
        this._handlerFailures++;
        this._reportDispatchError(err);
        this._disconnect(disconnectedCodes.badProtocol, `exception in event handler: ${errorMessage(err)}`, false);
    }
    // An exception while handling a reply, other than one of an event handler (see
    // _handlerFailed), may have left the client's state inconsistent. The client stops
    // in a state the application can see: it disconnects without reconnecting, so no
    // later reply is processed.
    _dispatchFailed(err) {
        this._reportDispatchError(err);
        this._disconnect(disconnectedCodes.badProtocol, `exception during message handling: ${errorMessage(err)}`, false);
    }
    // The exception is surfaced as an unhandled rejection, as before.
    _reportDispatchError(err) {
        this._debug('error dispatching reply', err);
        Promise.reject(err);
    }
    // An exception, other than one of an event handler, while handling a rejected
    // command. A rejection with next() carries a reply, and is handled as any reply
    // (see _dispatchFailed). A timeout or a teardown doesn't: stopping the client would
    // cancel the reconnect or retry the handling scheduled, so the exception is only
    // reported.
    _rejectionFailed(err, rejectCtx) {
        if (rejectCtx.next !== undefined) {
            this._dispatchFailed(err);
        }
        else {
            this._reportDispatchError(err);
        }
    }
    _dispatchReply(reply) {
        let next;
        const p = new Promise(resolve => {
            next = resolve;
        });
        if (reply === undefined || reply === null) {
            this._debug('dispatch: got undefined or null reply');
            next();
            return p;
        }
        const id = reply.id;
        if (id && id > 0) {
            this._handleReply(reply, next);
        }
        else {
            if (!reply.push) {
                this._handleServerPing(next);
            }
            else {
                this._handlePush(reply.push, next);
            }
        }
        return p;
    }
    _call(cmd, skipSending) {
        return new Promise((resolve, reject) => {
            cmd.id = this._nextCommandId();
            this._registerCall(cmd.id, resolve, reject);
            if (!skipSending) {
                this._addCommand(cmd);
            }
        });
    }
    _startConnecting() {
        this._debug('start connecting');
        // The attempt starts unless a handler of the events disconnected the client (or
        // threw, which disconnects it). So the number of the transition is taken before
        // its state event.
        const transition = this.state !== State.Connecting ? this._stateTransitions + 1 : 0;
        try {
            this._setState(State.Connecting);
            // A 'state' handler may have called disconnect() already.
            if (transition && !this._transitionSuperseded(transition)) {
                this.emit('connecting', { code: connectingCodes.connectCalled, reason: 'connect called' });
            }
        }
        finally {
            if (!this._transitionSuperseded(transition)) {
                this._client = null;
                this._startReconnecting();
            }
        }
    }
    _disconnect(code, reason, reconnect) {
        if (code === disconnectedCodes.stateInvalidated) {
            // State invalidated: clear connection token (forcing a fresh one via
            // getToken on reconnect) and invalidate all subscription state. Done here
            // (the shared funnel) so it fires whether it arrives as a Disconnect push
            // or as a raw WebSocket close code — and before _clearConnectedState below
            // moves subscriptions to subscribing for the resubscribe. Runs ahead of the
            // isDisconnected guard so the invalidation is unconditional.
            // Without getToken there is no new token to get: keep the token the
            // client has (or none) and reconnect with it. The server rejects it if
            // it's no longer valid, instead of the client stopping on a local
            // configuration error.
            if (this._config.getToken !== null) {
                this._token = '';
                this._refreshRequired = true;
            }
            for (const channel in this._subs) {
                if (this._subs.hasOwnProperty(channel)) {
                    // @ts-ignore – _invalidateState is internal.
                    this._subs[channel]._invalidateState();
                }
            }
            // Server-side subscriptions carry their own cached recovery position,
            // separate from the client-side subscriptions above — reset it to the
            // same unrecoverable sentinel so the next connect can't recover from
            // now-invalidated state. "_" is a sentinel, not an epoch the server can
            // produce: the recovery of the next connect is meant to fail. It has to be
            // non-empty — an empty epoch means "any epoch" to the server (see
            // _invalidateState of a subscription).
            for (const channel in this._serverSubs) {
                if (this._serverSubs.hasOwnProperty(channel)) {
                    this._serverSubs[channel].offset = 0;
                    this._serverSubs[channel].epoch = '_';
                }
            }
        }
        if (this._isDisconnected()) {
            if (!reconnect) {
                // Calls made while disconnected wait for a connection: disconnect() ends
                // that wait too.
                this._rejectPromises({ code: errorCodes.clientDisconnected, message: 'disconnected' });
            }
            return;
        }
        const previousState = this.state;
        const newState = reconnect ? State.Connecting : State.Disconnected;
        // Tear everything down before emitting any event: handlers may call connect()
        // or disconnect() synchronously, and nothing below must undo what they start.
        this._transportIsOpen = false;
        this._reconnecting = false;
        if (previousState === State.Connecting) {
            this._clearReconnectTimeout();
        }
        this._clearConnectTimeout();
        // Invalidates callbacks of the transport closed below (SSE issues its close
        // callback synchronously).
        this._nextTransportId();
        // Aborts token/data continuations of an attempt that had not created a
        // transport yet.
        this._disconnects++;
        if (this._transport) {
            this._debug("closing existing transport");
            const transport = this._transport;
            this._transport = null;
            try {
                transport.close();
            }
            catch (e) {
                // E.g. a transport whose socket constructor threw: the teardown must complete.
                this._debug('error closing transport', e);
            }
            // Its close callback is ignored, so a new attempt must not wait for it.
            this._transportClosed = true;
        }
        else {
            this._debug("no transport to close");
        }
        // A connection that ends before it proved usable keeps the backoff growing.
        this._reconnectAttemptsResetPending = false;
        // Commands collected for the closed transport must not go out on the next one.
        this._commands = [];
        this._clearOutgoingRequests();
        if (!reconnect) {
            this._rejectPromises({ code: errorCodes.clientDisconnected, message: 'disconnected' });
            // Network listeners are removed with the state change below, so no online
            // event can reset it.
            this._deviceWentOffline = false;
            this._pageCached = false;
        }
        const ctx = {
            code: code,
            reason: reason
        };
        // The rest runs whatever the handlers of the events do: subscriptions must move to
        // subscribing and a reconnect must be scheduled, or the client is left stuck. So
        // the number of the transition is taken before its state event.
        const transition = this.state !== newState ? this._stateTransitions + 1 : 0;
        try {
            try {
                this._setState(newState);
            }
            finally {
                if (!reconnect && !this._transitionSuperseded(transition)) {
                    // Client methods called from a 'state' handler must fail now too, not wait
                    // for a connection.
                    this._rejectPromises({ code: errorCodes.clientDisconnected, message: 'disconnected' });
                }
                if (previousState === State.Connected) {
                    this._clearConnectedState();
                }
            }
            // A handler of the events above may have changed the state again: this
            // transition is outdated then, and its event would arrive out of order.
            if (transition && !this._transitionSuperseded(transition)) {
                if (reconnect) {
                    this.emit('connecting', ctx);
                }
                else {
                    this.emit('disconnected', ctx);
                }
            }
        }
        finally {
            // Unless a handler has already started a new attempt.
            if (reconnect && !this._transitionSuperseded(transition)) {
                this._scheduleReconnect();
            }
        }
    }
    _failUnauthorized() {
        this._disconnect(disconnectedCodes.unauthorized, 'unauthorized', false);
    }
    _getToken() {
        this._debug('get connection token');
        if (!this._config.getToken) {
            try {
                this.emit('error', {
                    type: 'configuration',
                    error: {
                        code: errorCodes.badConfiguration,
                        message: 'token expired but no getToken function set in the configuration'
                    }
                });
            }
            catch (e) {
                // The attempt must fail as unauthorized all the same, not stay in progress.
                this._reportDispatchError(e);
            }
            return Promise.reject(new UnauthorizedError(''));
        }
        // A callback throwing instead of returning a rejected promise fails the same way,
        // not by throwing out of the attempt.
        try {
            return Promise.resolve(this._config.getToken({}));
        }
        catch (e) {
            return Promise.reject(e);
        }
    }
    // See _getToken.
    _getData() {
        try {
            return Promise.resolve(this._config.getData());
        }
        catch (e) {
            return Promise.reject(e);
        }
    }
    _refresh() {
        const clientId = this._client;
        const self = this;
        // See _startReconnecting.
        let tokenResolved = false;
        this._getToken().then(function (token) {
            tokenResolved = true;
            if (clientId !== self._client) {
                return;
            }
            if (!token) {
                self._failUnauthorized();
                return;
            }
            self._token = token;
            self._debug('connection token refreshed');
            if (!self._isConnected()) {
                return;
            }
            const cmd = {
                refresh: { token: self._token }
            };
            self._call(cmd, false).then(resolveCtx => {
                try {
                    self._refreshResponse(resolveCtx.reply.refresh);
                }
                catch (err) {
                    self._dispatchFailed(err);
                }
                finally {
                    if (resolveCtx.next) {
                        resolveCtx.next();
                    }
                }
            }, rejectCtx => {
                try {
                    // A disconnect rejects the pending command too: nothing to retry then,
                    // the connection this refresh was for is gone.
                    if (clientId === self._client) {
                        self._refreshError(rejectCtx.error);
                    }
                }
                catch (err) {
                    self._rejectionFailed(err, rejectCtx);
                }
                finally {
                    if (rejectCtx.next) {
                        rejectCtx.next();
                    }
                }
            });
        }).catch(function (e) {
            if (clientId !== self._client || !self._isConnected()) {
                if (tokenResolved) {
                    self._reportDispatchError(e);
                }
                return;
            }
            if (e instanceof UnauthorizedError) {
                self._failUnauthorized();
                return;
            }
            self._emitError({
                type: 'refreshToken',
                error: {
                    code: errorCodes.clientRefreshToken,
                    message: e !== undefined ? e.toString() : ''
                }
            }, () => {
                self._refreshTimeout = setTimeout(() => self._refresh(), self._getRefreshRetryDelay());
            });
        });
    }
    _refreshError(err) {
        if (err.code < 100 || err.temporary === true) {
            this._emitError({
                type: 'refresh',
                error: err
            }, () => {
                this._refreshTimeout = setTimeout(() => this._refresh(), this._getRefreshRetryDelay());
            });
        }
        else {
            this._disconnect(err.code, err.message, false);
        }
    }
    _getRefreshRetryDelay() {
        return backoff(0, 5000, 10000);
    }
    _refreshResponse(result) {
        if (this._refreshTimeout) {
            clearTimeout(this._refreshTimeout);
            this._refreshTimeout = null;
        }
        if (result.expires) {
            // The client id of the connection only changes if the reply carries one — and
            // Centrifugo never sets that field of a refresh reply. Taking an absent one
            // leaves the client without an id, and the checks comparing against it stop
            // recognising a token fetch, or a reply, of a connection that is gone.
            if (result.client) {
                this._client = result.client;
            }
            this._refreshTimeout = setTimeout(() => this._refresh(), ttlMilliseconds(result.ttl));
        }
    }
    // A new subscription of the channel waits for the unsubscribe of a removed one, and
    // of those removed before it still unsubscribing (see _setSubscribing of a
    // subscription): a subscription removed without sending an unsubscribe doesn't
    // drop one still pending.
    _recordRemovedUnsubscribe(sub) {
        const channel = sub.channel;
        const previous = this._removedUnsubscribes[channel];
        // @ts-ignore – we are hiding some symbols from public API autocompletion.
        const own = sub._unsubPromise;
        const unsubscribed = previous ? Promise.all([previous, own]).then(() => undefined) : own;
        this._removedUnsubscribes[channel] = unsubscribed;
        unsubscribed.then(() => {
            if (this._removedUnsubscribes[channel] === unsubscribed) {
                delete this._removedUnsubscribes[channel];
            }
        });
    }
    // Resolves once a subscription of the channel removed from the client has
    // unsubscribed (see BaseSubscription._setSubscribing).
    // @ts-ignore – this is used by a subscription in subscription.ts.
    _removedSubscriptionUnsubscribed(channel) {
        return this._removedUnsubscribes[channel] || Promise.resolve();
    }
    _unsubscribe(sub) {
        if (!this._transportIsOpen) {
            return Promise.resolve();
        }
        const req = {
            channel: sub.channel
        };
        const cmd = { unsubscribe: req };
        const self = this;
        // A teardown rejects the pending command, and the rejection is processed after
        // it: a newer attempt may have started by then, which must not be torn down.
        const transportId = this._transportId;
        const unsubscribePromise = new Promise((resolve, _) => {
            this._call(cmd, false).then(resolveCtx => {
                resolve();
                if (resolveCtx.next) {
                    resolveCtx.next();
                }
            }, rejectCtx => {
                resolve();
                if (rejectCtx.next) {
                    rejectCtx.next();
                }
                if (self._transportId !== transportId) {
                    self._debug('unsubscribe command of a closed transport rejected');
                    return;
                }
                try {
                    self._disconnect(connectingCodes.unsubscribeError, 'unsubscribe error', true);
                }
                catch (err) {
                    self._rejectionFailed(err, rejectCtx);
                }
            });
        });
        return unsubscribePromise;
    }
    _getSub(channel, id) {
        if (id && id > 0) {
            for (const ch in this._subs) {
                if (this._subs.hasOwnProperty(ch)) {
                    const sub = this._subs[ch];
                    // @ts-ignore – we are accessing private property for internal use
                    if (sub._id === id) {
                        return sub;
                    }
                }
            }
            return null;
        }
        const sub = this._subs[channel];
        if (!sub) {
            return null;
        }
        return sub;
    }
    _isServerSub(channel) {
        return this._serverSubs[channel] !== undefined;
    }
    // The client-side subscription a push is for. The server allows one subscription
    // per channel: while a server-side subscription has the channel, its pushes
    // belong to it unless the client-side subscription is subscribed, e.g. when the
    // app kept an unsubscribed subscription object of that channel.
    _getSubForPush(channel, id) {
        const sub = this._getSub(channel, id);
        // @ts-ignore – we are hiding some symbols from public API autocompletion.
        if (sub && channel && this._isServerSub(channel) && !sub._isSubscribed()) {
            return null;
        }
        return sub;
    }
    _sendSubscribeCommands() {
        const commands = [];
        for (const channel in this._subs) {
            if (!this._subs.hasOwnProperty(channel)) {
                continue;
            }
            const sub = this._subs[channel];
            // @ts-ignore – we are hiding some symbols from public API autocompletion.
            if (sub._inflight === true) {
                continue;
            }
            // A subscribe error is retried after its backoff, also across a reconnect.
            // @ts-ignore – we are hiding some symbols from public API autocompletion.
            if (sub._resubscribeTimeout !== null) {
                continue;
            }
            if (sub.state === SubscriptionState.Subscribing) {
                // @ts-ignore – we are hiding some symbols from public API autocompletion.
                const cmd = sub._subscribe();
                if (cmd) {
                    commands.push(cmd);
                }
            }
        }
        return commands;
    }
    _connectResponse(result) {
        this._transportIsOpen = true;
        this._transportWasOpen = true;
        if (this._transport !== null && this._transport.emulation()) {
            // A connect reply over an emulation transport proves only the stream. Commands
            // go through the emulation endpoint, which may keep failing and close the
            // transport after every connect: reset the backoff once the server replied to
            // a command or pinged, or such a client reconnects at the minimum delay forever.
            this._reconnectAttemptsResetPending = true;
        }
        else {
            this._reconnectAttempts = 0;
        }
        this._refreshRequired = false;
        // Connected again: a later online event must not take the device for having been
        // offline and abort a transport that works.
        this._deviceWentOffline = false;
        // Reconnected by the timer, in a page that was not frozen.
        this._pageCached = false;
        if (this._isConnected()) {
            return;
        }
        this._client = result.client;
        const transition = this._setState(State.Connected);
        // A 'state' handler may have called disconnect(), which already tore the
        // connection down.
        if (this._transitionSuperseded(transition)) {
            return;
        }
        if (this._refreshTimeout) {
            clearTimeout(this._refreshTimeout);
        }
        if (result.expires) {
            this._refreshTimeout = setTimeout(() => this._refresh(), ttlMilliseconds(result.ttl));
        }
        this._session = result.session;
        this._node = result.node;
        this.startBatching();
        this._sendSubscribeCommands();
        this.stopBatching();
        const ctx = {
            client: result.client,
            transport: this._transport.subName()
        };
        if (result.data) {
            ctx.data = result.data;
        }
        this.emit('connected', ctx);
        // Same for a 'connected' handler.
        if (this._transitionSuperseded(transition)) {
            return;
        }
        this._resolvePromises();
        this._processServerSubs(result.subs || {}, transition);
        if (result.ping && result.ping > 0) {
            this._serverPing = result.ping * 1000;
            this._sendPong = result.pong === true;
            this._waitServerPing();
        }
        else {
            this._serverPing = 0;
        }
    }
    _processServerSubs(subs, transition) {
        // A 'subscribed' or 'publication' handler may call disconnect(). Removed
        // channels are still reported, but no more subscribed or publication events
        // of this connection are emitted, and no more positions stored: a position
        // whose subscribed event the app didn't get would hide a gap from it (the
        // next connect recovering from a position after it, recovered=true).
        for (const channel in subs) {
            if (!subs.hasOwnProperty(channel)) {
                continue;
            }
            if (this._transitionSuperseded(transition)) {
                continue;
            }
            const sub = subs[channel];
            this._serverSubs[channel] = {
                'offset': toOffset(sub.offset),
                'epoch': sub.epoch,
                'recoverable': sub.recoverable || false,
                'subscribed': true
            };
            const subCtx = this._getSubscribeContext(channel, sub);
            this.emit('subscribed', subCtx);
        }
        for (const channel in subs) {
            if (!subs.hasOwnProperty(channel)) {
                continue;
            }
            const sub = subs[channel];
            if (sub.recovered) {
                const pubs = sub.publications || [];
                for (let i = 0; i < pubs.length && !this._transitionSuperseded(transition); i++) {
                    this._handlePublication(channel, pubs[i]);
                }
            }
        }
        for (const channel in this._serverSubs) {
            if (!this._serverSubs.hasOwnProperty(channel)) {
                continue;
            }
            if (!subs[channel]) {
                this.emit('unsubscribed', { channel: channel });
                delete this._serverSubs[channel];
            }
        }
    }
    _clearRefreshTimeout() {
        if (this._refreshTimeout !== null) {
            clearTimeout(this._refreshTimeout);
            this._refreshTimeout = null;
        }
    }
    _clearReconnectTimeout() {
        if (this._reconnectTimeout !== null) {
            clearTimeout(this._reconnectTimeout);
            this._reconnectTimeout = null;
        }
    }
    _clearConnectTimeout() {
        if (this._connectTimeout !== null) {
            clearTimeout(this._connectTimeout);
            this._connectTimeout = null;
        }
    }
    _clearServerPingTimeout() {
        if (this._serverPingTimeout !== null) {
            clearTimeout(this._serverPingTimeout);
            this._serverPingTimeout = null;
        }
    }
    _waitServerPing() {
        if (this._config.maxServerPingDelay === 0) {
            return;
        }
        if (!this._isConnected()) {
            return;
        }
        this._clearServerPingTimeout();
        const delay = this._serverPing + this._config.maxServerPingDelay;
        const due = Date.now() + delay;
        this._serverPingTimeout = setTimeout(() => {
            if (!this._isConnected()) {
                return;
            }
            // A ping may have been received already but not processed yet, e.g. when a
            // suspended process resumes: let that data be processed first, as for a call
            // (see _registerCall). Any data received re-arms this timer.
            const late = Date.now() - due >= lateCallTimer;
            this._serverPingTimeout = setTimeout(() => {
                if (!this._isConnected()) {
                    return;
                }
                this._disconnect(connectingCodes.noPing, 'no ping', true);
            }, late ? lateCallGrace : 0);
        }, delay);
    }
    _getSubscribeContext(channel, result) {
        const ctx = {
            channel: channel,
            positioned: false,
            recoverable: false,
            wasRecovering: false,
            recovered: false,
            hasRecoveredPublications: false,
        };
        if (result.recovered) {
            ctx.recovered = true;
        }
        if (result.positioned) {
            ctx.positioned = true;
        }
        if (result.recoverable) {
            ctx.recoverable = true;
        }
        if (result.was_recovering) {
            ctx.wasRecovering = true;
        }
        let epoch = '';
        if ('epoch' in result) {
            epoch = result.epoch;
        }
        let offset = 0;
        if ('offset' in result) {
            offset = toOffset(result.offset);
        }
        if (ctx.positioned || ctx.recoverable) {
            ctx.streamPosition = {
                'offset': offset,
                'epoch': epoch
            };
        }
        if (Array.isArray(result.publications) && result.publications.length > 0) {
            ctx.hasRecoveredPublications = true;
        }
        if (result.data) {
            ctx.data = result.data;
        }
        return ctx;
    }
    _handleReply(reply, next) {
        this._resetReconnectAttemptsIfPending();
        const id = reply.id;
        if (!(id in this._callbacks)) {
            next();
            return;
        }
        const callbacks = this._callbacks[id];
        clearTimeout(this._callbacks[id].timeout);
        delete this._callbacks[id];
        if (!errorExists(reply)) {
            const callback = callbacks.callback;
            if (!callback) {
                return;
            }
            callback({ reply, next });
        }
        else {
            const errback = callbacks.errback;
            if (!errback) {
                next();
                return;
            }
            const error = { code: reply.error.code, message: reply.error.message || '', temporary: reply.error.temporary || false };
            errback({ error, next });
        }
    }
    _handleJoin(channel, join, id) {
        const sub = this._getSubForPush(channel, id);
        if (!sub) {
            // See _handlePublication: a compacted push with an unknown id has an empty
            // channel and no matching subscription — drop instead of crashing.
            if (channel && this._isServerSub(channel)) {
                const ctx = { channel: channel, info: this._getJoinLeaveContext(join.info) };
                this.emit('join', ctx);
            }
            return;
        }
        // @ts-ignore – we are hiding some symbols from public API autocompletion.
        if (!sub._isSubscribed()) {
            this._debug('join for a subscription that is not subscribed', channel);
            return;
        }
        // @ts-ignore – we are hiding some symbols from public API autocompletion.
        sub._handleJoin(join);
    }
    _handleLeave(channel, leave, id) {
        const sub = this._getSubForPush(channel, id);
        if (!sub) {
            // See _handlePublication: a compacted push with an unknown id has an empty
            // channel and no matching subscription — drop instead of crashing.
            if (channel && this._isServerSub(channel)) {
                const ctx = { channel: channel, info: this._getJoinLeaveContext(leave.info) };
                this.emit('leave', ctx);
            }
            return;
        }
        // @ts-ignore – we are hiding some symbols from public API autocompletion.
        if (!sub._isSubscribed()) {
            this._debug('leave for a subscription that is not subscribed', channel);
            return;
        }
        // @ts-ignore – we are hiding some symbols from public API autocompletion.
        sub._handleLeave(leave);
    }
    _handleUnsubscribe(channel, unsubscribe) {
        const sub = this._getSubForPush(channel, 0);
        if (!sub) {
            if (channel && this._isServerSub(channel)) {
                delete this._serverSubs[channel];
                this.emit('unsubscribed', { channel: channel });
            }
            return;
        }
        // @ts-ignore – we are hiding some symbols from public API autocompletion.
        if (!sub._isSubscribed()) {
            // It ends a previous subscription: one the app unsubscribed, or one that raced
            // unsubscribe() and subscribe() of the app. The server unsubscribes a
            // subscription in progress only after replying to its subscribe, and it sends
            // the push also when the subscription is already gone. A resubscribe code must
            // not subscribe again, nor invalidate the state of a subscribe in progress.
            this._debug('unsubscribe push for a previous subscription', channel);
            return;
        }
        if (unsubscribe.code < 2500) {
            // @ts-ignore – we are hiding some symbols from public API autocompletion.
            sub._setUnsubscribed(unsubscribe.code, unsubscribe.reason, false);
        }
        else {
            if (unsubscribe.code === unsubscribedCodes.stateInvalidated) {
                // State invalidated: clear subscription token and cached state so the
                // resubscribe gets a fresh token and re-syncs.
                // @ts-ignore – _invalidateState is internal.
                sub._invalidateState();
            }
            // @ts-ignore – we are hiding some symbols from public API autocompletion.
            sub._setSubscribing(unsubscribe.code, unsubscribe.reason);
        }
    }
    _handleSubscribe(channel, sub) {
        this._serverSubs[channel] = {
            'offset': toOffset(sub.offset),
            'epoch': sub.epoch,
            'recoverable': sub.recoverable || false,
            'subscribed': true
        };
        this.emit('subscribed', this._getSubscribeContext(channel, sub));
    }
    _handleDisconnect(disconnect) {
        // The server pushed it over the transport, so the transport works: reconnect
        // after the reconnect delay, as after a close code from the server, not at once
        // with the next transport as for one that failed to open. An emulation transport
        // is otherwise marked open only by a connect reply.
        this._transportWasOpen = true;
        const code = disconnect.code;
        let reconnect = true;
        if ((code >= 3500 && code < 4000) || (code >= 4500 && code < 5000)) {
            reconnect = false;
        }
        // State invalidation (code 3014) is handled centrally in _disconnect so it
        // covers both delivery paths: a Disconnect push (this method) and a raw
        // WebSocket close code (transport onClose → _disconnect directly).
        this._disconnect(code, disconnect.reason, reconnect);
    }
    _getPublicationContext(channel, pub) {
        const ctx = {
            channel: channel,
            data: pub.data
        };
        if (hasOffset(pub.offset)) {
            ctx.offset = toOffset(pub.offset);
        }
        if (pub.info) {
            ctx.info = this._getJoinLeaveContext(pub.info);
        }
        if (pub.tags) {
            ctx.tags = pub.tags;
        }
        return ctx;
    }
    _getJoinLeaveContext(clientInfo) {
        const info = {
            client: clientInfo.client,
            user: clientInfo.user
        };
        const connInfo = clientInfo['conn_info'];
        if (connInfo) {
            info.connInfo = connInfo;
        }
        const chanInfo = clientInfo['chan_info'];
        if (chanInfo) {
            info.chanInfo = chanInfo;
        }
        return info;
    }
    _handlePublication(channel, pub, id) {
        const sub = this._getSubForPush(channel, id);
        if (!sub) {
            // No client-side subscription. With channel compaction the push carries a
            // numeric id and no channel, so an unknown id (e.g. a publication for a
            // subscription already unsubscribed) has an empty channel here — it must
            // be dropped, not fall through to sub._handlePublication on null.
            if (channel && this._isServerSub(channel)) {
                const ctx = this._getPublicationContext(channel, pub);
                // The position moves after the app has the publication, so the position it can
                // observe never runs ahead of what it received (see
                // BaseSubscription._handlePublication). A connect command built while a handler
                // runs takes the offset of the publication being dispatched (see the subs of
                // _constructConnectCommand), so a connect() from that handler still recovers
                // after it instead of receiving it again.
                this._pendingServerSubOffsets[channel] = hasOffset(pub.offset) ? toOffset(pub.offset) : null;
                const failures = this._handlerFailures;
                try {
                    this.emit('publication', ctx);
                }
                finally {
                    delete this._pendingServerSubOffsets[channel];
                }
                // A publication whose handler threw isn't delivered: the position stays before
                // it, so the next recovery delivers it again.
                if (this._handlerFailures !== failures) {
                    return;
                }
                if (hasOffset(pub.offset)) {
                    this._serverSubs[channel].offset = toOffset(pub.offset);
                }
                // The epoch of a channel that had no stream at subscribe time comes with
                // its first publication (see BaseSubscription._setPublicationPosition).
                if (pub.epoch) {
                    this._serverSubs[channel].epoch = pub.epoch;
                }
            }
            return;
        }
        // @ts-ignore – we are hiding some symbols from public API autocompletion.
        if (!sub._isSubscribed()) {
            // E.g. a publication already on its way when the app called unsubscribe().
            this._debug('publication for a subscription that is not subscribed', channel);
            return;
        }
        // @ts-ignore – we are hiding some symbols from public API autocompletion.
        sub._handlePublication(pub);
    }
    _handleMessage(message) {
        this.emit('message', { data: message.data });
    }
    _handleServerPing(next) {
        this._resetReconnectAttemptsIfPending();
        if (this._sendPong) {
            const cmd = {};
            this._transportSendCommands([cmd]);
        }
        next();
    }
    _handlePush(data, next) {
        const channel = data.channel;
        const id = data.id;
        if (data.pub) {
            this._handlePublication(channel, data.pub, id);
        }
        else if (data.message) {
            this._handleMessage(data.message);
        }
        else if (data.join) {
            this._handleJoin(channel, data.join, id);
        }
        else if (data.leave) {
            this._handleLeave(channel, data.leave, id);
        }
        else if (data.unsubscribe) {
            this._handleUnsubscribe(channel, data.unsubscribe);
        }
        else if (data.subscribe) {
            this._handleSubscribe(channel, data.subscribe);
        }
        else if (data.disconnect) {
            this._handleDisconnect(data.disconnect);
        }
        next();
    }
    _flush() {
        const commands = this._commands.slice(0);
        this._commands = [];
        this._transportSendCommands(commands);
    }
    _createErrorObject(code, message, temporary) {
        const errObject = {
            code: code,
            message: message
        };
        if (temporary) {
            errObject.temporary = true;
        }
        return errObject;
    }
    _registerCall(id, callback, errback) {
        this._callbacks[id] = {
            callback: callback,
            errback: errback,
            timeout: null
        };
        const due = Date.now() + this._config.timeout;
        this._callbacks[id].timeout = setTimeout(() => {
            // The reply may have been received already but not processed yet, e.g. when
            // a suspended process resumes and this overdue timer runs before the data
            // waiting in the socket. Let that data be processed first: one event loop
            // turn is enough in Node. A timer running far too late means the process was
            // suspended or blocked, and browsers don't promise to run the socket events
            // before it: the reply gets a grace period then.
            const late = Date.now() - due >= lateCallTimer;
            this._callbacks[id].timeout = setTimeout(() => {
                delete this._callbacks[id];
                if (isFunction(errback)) {
                    errback({ error: this._createErrorObject(errorCodes.timeout, 'timeout') });
                }
            }, late ? lateCallGrace : 0);
        }, this._config.timeout);
    }
    _addCommand(command) {
        if (this._batching) {
            this._commands.push(command);
        }
        else {
            this._transportSendCommands([command]);
        }
    }
    _nextPromiseId() {
        return ++this._promiseId;
    }
    _nextTransportId() {
        return ++this._transportId;
    }
    _resolvePromises() {
        for (const id in this._promises) {
            if (!this._promises.hasOwnProperty(id)) {
                continue;
            }
            if (this._promises[id].timeout) {
                clearTimeout(this._promises[id].timeout);
            }
            this._promises[id].resolve();
            delete this._promises[id];
        }
    }
    _rejectPromises(err) {
        for (const id in this._promises) {
            if (!this._promises.hasOwnProperty(id)) {
                continue;
            }
            if (this._promises[id].timeout) {
                clearTimeout(this._promises[id].timeout);
            }
            this._promises[id].reject(err);
            delete this._promises[id];
        }
    }
}
Centrifuge.SubscriptionState = SubscriptionState;
Centrifuge.State = State;
Centrifuge.UnauthorizedError = UnauthorizedError;

export { Centrifuge, State, Subscription, SubscriptionState, UnauthorizedError, connectingCodes, disconnectedCodes, errorCodes, subscribingCodes, subscriptionFlags, unsubscribedCodes };

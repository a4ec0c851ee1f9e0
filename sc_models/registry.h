// Self-registration (docs/architecture.md "Registration"): a plug-in — a system kind, a memory
// controller front end, a persistency model — registers itself with one line in the file that
// defines it; no central list names it.
//
//     const WriteQueueKind kDirectFe{"direct", "...", make};
//     PERSIM_REGISTER(WriteQueueKind, "direct", kDirectFe, 10);
//
// PERSIM_REGISTER(Type, "name", object, order) adds &object under "name" to Registry<Type>, the
// list of every registered Type. The registrar is a static object in an anonymous namespace, so
// the line runs before main(); objects are kept by address only, so the registered object may be
// defined anywhere (usually just above the line). The listing order (Registry<Type>::all(): what
// `persim list`, --help and the error messages show) is by `order`, then by name: it does not depend
// on link order. Two entries with the same name in one registry, or (for a Type with a `name`
// member) a registered name that is not the object's own name, are programming errors: the first
// lookup prints the name and aborts.
//
// A new kind of registry needs nothing but its type: Registry<MyKind>::all() / find("name") work
// for any Type once something has registered; a header usually wraps them in
// all_my_kinds() / find_my_kind(name) (as system.h, write_queue.h and persist_model.h do).
//
// Linking: nothing refers to a registering file but its registrar, so a static library would
// let the linker drop it. persim_sc and persim_workloads are linked whole-archive
// (CMakeLists.txt); a new library holding registrations must be too.
#pragma once
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <type_traits>
#include <vector>

namespace persim {

namespace registry_detail {
// The object's own name, if its type has a `name` member (checked against the registered name).
template <class T, class = void>
struct HasName : std::false_type {};
template <class T>
struct HasName<T, std::void_t<decltype(std::string(std::declval<const T &>().name))>> : std::true_type {};
template <class T>
void check_name(const std::string &registered, const T *obj)
{
    if constexpr (HasName<T>::value) {
        if (registered != std::string(obj->name)) {
            std::fprintf(stderr, "persim: registered as '%s' but the object is named '%s' (PERSIM_REGISTER)\n",
                         registered.c_str(), std::string(obj->name).c_str());
            std::abort();
        }
    }
}
} // namespace registry_detail

template <class T>
class Registry {
public:
    struct Entry {
        std::string name;
        const T *obj;
        int order;
    };

    static void add(const char *name, const T *obj, int order)
    {
        state().entries.push_back(Entry{name, obj, order});
        state().sorted = false;
    }
    // Every registered object, by (order, name).
    static const std::vector<const T *> &all()
    {
        State &s = state();
        if (!s.sorted) {
            std::stable_sort(s.entries.begin(), s.entries.end(), [](const Entry &a, const Entry &b) {
                return a.order != b.order ? a.order < b.order : a.name < b.name;
            });
            for (const Entry &e : s.entries) registry_detail::check_name(e.name, e.obj);
            for (size_t i = 0; i < s.entries.size(); ++i)
                for (size_t j = 0; j < i; ++j)
                    if (s.entries[i].name == s.entries[j].name) {
                        std::fprintf(stderr, "persim: '%s' is registered twice in one registry (PERSIM_REGISTER)\n",
                                     s.entries[i].name.c_str());
                        std::abort();
                    }
            s.objs.clear();
            for (const Entry &e : s.entries) s.objs.push_back(e.obj);
            s.sorted = true;
        }
        return s.objs;
    }
    static const std::vector<Entry> &entries()
    {
        all();
        return state().entries;
    }
    // The object registered under `name`, or nullptr.
    static const T *find(const std::string &name)
    {
        for (const Entry &e : entries())
            if (e.name == name) return e.obj;
        return nullptr;
    }

private:
    struct State {
        std::vector<Entry> entries;
        std::vector<const T *> objs;
        bool sorted = false;
    };
    // A function-local static: registrars in other translation units may run before any
    // namespace-scope object of this one is initialised.
    static State &state()
    {
        static State s;
        return s;
    }
};

template <class T>
struct Registrar {
    Registrar(const char *name, const T *obj, int order) { Registry<T>::add(name, obj, order); }
};

} // namespace persim

#define PERSIM_REGISTRY_CAT2(a, b) a##b
#define PERSIM_REGISTRY_CAT(a, b) PERSIM_REGISTRY_CAT2(a, b)
// Registers `object` (of type Type, or derived from it) as "name" with listing key `order`.
// Use at namespace scope (inside or outside namespace persim), once per object.
#define PERSIM_REGISTER(Type, name, object, order)                                                              \
    namespace {                                                                                                  \
    const ::persim::Registrar<Type> PERSIM_REGISTRY_CAT(persim_registrar_, __LINE__){(name), &(object), (order)}; \
    }                                                                                                            \
    static_assert(true, "PERSIM_REGISTER takes a semicolon")

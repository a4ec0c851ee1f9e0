#include "out_file.h"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include "config.h"

namespace fs = std::filesystem;

namespace persim {

void write_file_replacing(const std::string &path, const std::string &text)
{
    const std::string part = path + ".part";
    std::error_code ec;
    fs::remove(part, ec);     // a stale or planted .part (a symlink is removed, not followed)
    {
        std::ofstream o(part, std::ios::binary | std::ios::trunc);
        if (!o) throw ConfigError(path + ": cannot write (" + std::strerror(errno) + ")");
        o << text;
        o.flush();
        if (!o) {
            fs::remove(part, ec);
            throw ConfigError(path + ": write failed (disk full?)");
        }
    }
    fs::rename(part, path, ec);
    if (ec) {
        std::error_code ec2;
        fs::remove(part, ec2);
        throw ConfigError(path + ": cannot replace: " + ec.message() +
                          (fs::is_directory(fs::symlink_status(path, ec2)) ? " (a directory is in the way)" : ""));
    }
}

UserOutput plan_user_output(const std::string &path)
{
    UserOutput u{path, path, path};
    std::error_code ec;
    if (path.empty()) throw ConfigError("output file: empty name");
    fs::path target = path;
    for (int hops = 0; fs::is_symlink(fs::symlink_status(target, ec)); ++hops) {   // the link's target (may not exist yet)
        if (hops == 40) throw ConfigError(path + ": too many levels of symbolic links");
        const fs::path to = fs::read_symlink(target, ec);
        if (ec) throw ConfigError(path + ": cannot read the symbolic link: " + ec.message());
        target = to.is_absolute() ? to : target.parent_path() / to;
    }
    const fs::file_status st = fs::status(target, ec);
    if (fs::is_directory(st)) throw ConfigError(path + ": is a directory (give a file name, e.g. " + path + "/out.trace)");
    if (fs::exists(st) && !fs::is_regular_file(st)) {
        u.write_to = target.string();                  // a FIFO, device or socket: in place
        u.final_path.clear();
        return u;
    }
    const fs::path dir = target.parent_path().empty() ? fs::path(".") : target.parent_path();
    if (!fs::is_directory(dir, ec)) throw ConfigError(path + ": folder " + dir.string() + " does not exist");
    u.final_path = target.string();
    u.write_to = u.final_path + ".part";
    fs::remove(u.write_to, ec);
    return u;
}

void finish_user_output(const UserOutput &o)
{
    if (o.final_path.empty()) return;
    std::error_code ec;
    fs::rename(o.write_to, o.final_path, ec);
    if (ec) {
        abandon_user_output(o);
        throw ConfigError(o.path + ": cannot replace: " + ec.message());
    }
}

void abandon_user_output(const UserOutput &o)
{
    if (o.final_path.empty()) return;
    std::error_code ec;
    fs::remove(o.write_to, ec);
}

} // namespace persim

package shellguard

import (
	"strings"
	"testing"
)

// Each class of destructive payload in several spellings the shell (and
// the program's own option parser) accepts. Every row must block; the
// rows run with tableOptions (workspace /home/u/proj, home /home/u).

var blockRmOptions = []string{
	"rm -rf /", "rm --r -f /", "rm --recursive --force /", "rm --rec --for /", "rm -r -f /", "rm -fr /", "rm -Rf /",
	"rm -r --no-preserve-root /", "rm -rf -- /", "rm / -rf", "rm -f / -R", "rm -vrf /", "rm -rfv /", "rm -dRf /",
	"rm --recursive=x /", "rm --recu /", "rm -r -- /", "rm -rfi /", "rm -I -r /", "rm --no-pres /x", "rm --force --recurs /",
	"rm -r --one-file-system /", "rm -r --interactive=never /",
}

var blockWrappers = []string{
	"nice rm -rf /", "nice -n 19 rm -rf /", "nice -19 rm -rf /", "nice --adjustment=5 rm -rf /",
	"exec -a rm /bin/busybox -rf /", "exec -a rm /busybox -rf /",
	"env rm -rf /", "env -i rm -rf /", "env -i PATH=/bin rm -rf /", `env -S "rm -rf /"`, "env -S'rm -rf /'",
	"env --split-string='rm -rf /'", `env --split-string "rm -rf /"`, `env -iS "rm -rf /"`, "env -u HOME rm -rf /",
	"env -- rm -rf /", "env - rm -rf /", "env FOO=1 BAR=2 rm -rf /", "env --unset=X rm -rf /", "env -C /tmp rm -rf /",
	"timeout 5 rm -rf /", "timeout -s KILL 5 rm -rf /", "timeout -sKILL 5 rm -rf /", "timeout --signal=KILL 5 rm -rf /",
	"timeout --sig=KILL 5 rm -rf /", "timeout -k 1 5 rm -rf /", "timeout --foreground 5s rm -rf /",
	"timeout -vs KILL 5 rm -rf /", "timeout -vsKILL 5 rm -rf /", "sudo -Eu root rm -rf /", "xargs -tn1 rm -rf /", "xargs -0tI{} rm -rf /",
	"nohup rm -rf /", "command rm -rf /", "command -p rm -rf /", "builtin rm -rf /", "exec rm -rf /", "exec -a x rm -rf /",
	"sudo rm -rf /", "sudo -u root rm -rf /", "sudo -E rm -rf /", "sudo -- rm -rf /", "sudo --user=root rm -rf /", "sudo -iu root rm -rf /",
	"doas rm -rf /", "doas -u root rm -rf /", "pkexec rm -rf /", "run0 rm -rf /",
	"xargs rm -rf /", "xargs -0 rm -rf /", "xargs -I{} rm -rf /", "xargs -n1 rm -rf /",
	"stdbuf -oL rm -rf /", "stdbuf -o0 -e0 rm -rf /", "ionice -c3 rm -rf /", "ionice -c 2 -n 7 rm -rf /", "chrt -f 99 rm -rf /",
	"chrt --idle 0 rm -rf /", "taskset -c 0 rm -rf /", "taskset 0x1 rm -rf /", "setsid rm -rf /", "setsid -f rm -rf /",
	"flock /tmp/l rm -rf /", "flock -x /tmp/l -c 'rm -rf /'", "flock /tmp/l --command 'rm -rf /'", "time rm -rf /", "time -p rm -rf /",
	"caffeinate -i rm -rf /", "unbuffer rm -rf /", "script -c 'rm -rf /'", "script -qc 'rm -rf /' /dev/null",
	"script --command='rm -rf /' /dev/null", "watch rm -rf /", "watch -n1 'rm -rf /'", "watch -x rm -rf /",
	"su -c 'rm -rf /'", "su root -c 'rm -rf /'", "su -lc 'rm -rf /'", "su --command='rm -rf /'", "su --comm 'rm -rf /'",
	"runuser -u root -- rm -rf /", "runuser -c 'rm -rf /' root", "runuser -l root -c 'rm -rf /'",
	"systemd-run rm -rf /", "systemd-run --scope -p X=1 rm -rf /", "busybox rm -rf /", "toybox rm -rf /", "/bin/busybox rm -rf /",
	"/bin/rm -rf /", "/usr/bin/rm -rf /", "/usr/bin/../bin/rm -rf /", "./rm -rf /", `\rm -rf /`, "r''m -rf /", `"rm" -rf /`,
	`'rm' -rf /`, `r\m -rf /`, `"r"'m' -rf /`, "/bin/r? -rf /", "/???/rm -rf /", "/usr/bin/r[m] -rf /", "$'rm' -rf /",
	"nice nice nice rm -rf /", "nice timeout 5 env nohup sudo rm -rf /",
	"nice nice nice nice nice nice nice nice nice nice rm -rf /", "sudo sudo sudo sudo sudo sudo sudo sudo rm -rf /",
	"strace -f rm -rf /", "ltrace rm -rf /", "chroot / rm -rf /", "unshare -r rm -rf /", "nsenter -t 1 -m rm -rf /",
	"firejail rm -rf /", "prlimit --nofile=10 rm -rf /", "setpriv --reuid=0 rm -rf /", "faketime 2020-01-01 rm -rf /",
	"tmux new-session -d 'rm -rf /'", "screen -dm bash -c 'rm -rf /'", "parallel rm -rf ::: /", "numactl -C 0 rm -rf /",
	"bash -c 'bash -c \"bash -c \\\"rm -rf /\\\"\"'", "eval eval eval 'rm -rf /'",
}

var blockPaths = []string{
	"rm -rf //", "rm -rf ///", "rm -rf /.", "rm -rf /./", "rm -rf /..", "rm -rf /../..", "rm -rf /./.././/", "rm -rf '/'",
	"rm -rf /proc/self/root/", "rm -rf /proc/self/root", "rm -rf /proc/1/root", "rm -rf /proc/1/root/", "rm -rf /proc/thread-self/root/etc",
	"rm -rf /proc/self/task/1/root", "rm -rf /proc/self/cwd", "rm -rf /proc/self/cwd/..", "rm -rf /proc/1/cwd/", "rm -rf /proc/*/root",
	"rm -rf ~", "rm -rf ~/", "rm -rf ~/.", "rm -rf ~/..", "rm -rf ~user", "rm -rf ~bob/", "rm -rf ~root", "rm -rf ~root/", "rm -rf ~+",
	`rm -rf "$HOME"`, "rm -rf ${HOME}", "rm -rf $HOME/", "rm -rf ${HOME}/.", `rm -rf "${HOME}/"`, "rm -rf $HOME/*", "rm -rf $PWD",
	"rm -rf /*", "rm -rf /?*", "rm -rf /[a-z]*", "rm -rf /{bin,etc}", "rm -rf {/,x}", "rm -rf {x,/}", "rm -rf /{,}", "rm -rf /{a..z}*",
	"rm -rf /e*", "rm -rf /u??", "rm -rf /*/", "rm -rf /*/*", "rm -rf /.*", "rm -rf ~/.*", "rm -rf ~/*", "rm -rf ~/.[!.]*",
	"rm -rf .*", "rm -rf ../*", "rm -rf ./*", "rm -rf *", "rm -rf ./", "rm -rf .", "rm -rf ..", "rm -rf ../..", "rm -rf */..",
	"rm -rf /home/u/proj", "rm -rf /home/u/proj/", "rm -rf /home/u/proj/.", "rm -rf /home/u/proj/src/..", "rm -rf /home/u",
	"rm -rf /home", "rm -rf /home/*", "rm -rf /home/u*", "rm -rf /h*/u", "rm -rf /usr", "rm -rf /usr/", "rm -rf //usr", "rm -rf /etc/../usr",
	"rm -rf /var", "rm -rf /boot", "rm -rf /lib64", "rm -rf $X/", "rm -rf ${X}/", `rm -rf "$STEAMROOT/"*`, "rm -rf $X/usr", "rm -rf $(pwd)/",
	"rm -rf $1/*", "rm -rf $X$Y/", "rm -rf /home/u/{proj,other}", "rm -rf {src,.}", "rm -rf x /", "rm -rf build /", "rm -rf / build",
	"rm -rf /{" + strings.Repeat("a,", 300) + "b}", "rm -rf $(echo /)", "rm -rf `printf /`", `rm -rf "$(echo ~)"`, "rm -rf $(pwd)",
	"rm -rf `pwd`/", "rm -rf ${X:-/}", "rm -rf ${X:=/}", "rm -rf ${X:+/}", "rm -rf ${HOME:?}", "rm -rf ${HOME%/*}", "rm -rf ${PWD%/*}",
	"rm -rf ${HOME:-/tmp}", "rm -rf $(echo /usr)", "rm -rf $(ls -d /)", "rm -rf /usr/bin", "rm -rf /usr/lib/", "rm -rf /usr/l*",
	"rm -rf /var/lib", "rm -rf /etc/*", "rm -rf ~/{*,.*}", "rm -rf /./home/./u/../u/proj", "rm -rf ／", "rm -rf $HOME/proj",
	"chmod 000 /", "chown nobody /", "chmod 0 //.", "sh -c 'rm -rf \"$0\"' /", "bash -c 'rm -rf $1' _ /", `bash -c 'rm -rf "$@"' _ x /`,
	"sh -c 'rm -rf ${1}/' _ ''", "alias ls='rm -rf /'; ls", "alias x='sudo rm -rf ~'",
	"chmod -R 000 /", "chmod -R 777 ~", "chmod --recursive 000 /", "chmod -R -w /", "chmod --rec u-w /", "chmod -vR 0 //",
	"chown -R x /", "chown -R nobody:nogroup ~", "chown --recursive x /usr", "chgrp -R x /", "setfacl -R -b /", "chattr -R +i /",
	"mv / x", "mv ~ /dev/null", "mv /home/u/proj /tmp/x", "mv -t /tmp ~", "mv --target-directory=/tmp /", "mv /usr /tmp/usr",
	"mv -f ~/ /tmp", "mv . ../x", "rsync -a --delete empty/ /", "rsync -a --delete-before empty/ ~/",
}

// blockAfterCd: relative targets are read from where a cd went.
var blockAfterCd = []string{
	// cd's options and --, and cd - (the previous directory, not known)
	"cd -- / && rm -rf *", "cd -P / && rm -rf *", "cd -L -- / && rm -rf *", "cd - && rm -rf *", "cd -P && rm -rf *",
	"cd .. && rm -rf proj", "cd / && rm -rf bin", "cd / && rm -rf *", "cd ~ && rm -rf *", "cd; rm -rf *", "cd && rm -rf .",
	"cd $X && rm -rf *", `cd "$DIR" && rm -rf usr`, "cd /tmp; rm -rf *", "cd - && rm -rf .", "popd && rm -rf etc",
	"if true; then cd /; fi; rm -rf bin", "cd /dev && dd if=/dev/zero of=sda", "cd /dev; echo x > sda", "cd / && cd usr && rm -rf .",
	"pushd / && rm -rf etc", "cd -P / && rm -rf usr", "builtin cd / && rm -rf usr", "cd -- / && rm -rf usr",
	"bash -c 'cd / && rm -rf usr'", "cd src && rm -rf ../..", "cd ~bob && rm -rf *", "(cd /tmp && true); rm -rf *",
	"cd /tmp && cd / && rm -rf lib", "cd ../.. && rm -rf u",
}

var blockForkBombs = []string{
	":(){ :|:& };:", ":(){ :|: & };:", "f(){ f|f& };f", "bomb() { bomb | bomb & }; bomb", "function x { x|x& }; x",
	"function x() { x | x & }; x", "f(){\n f | f &\n}\nf", "a(){ a & a; }; a", "f(){ f|f; }; f", "_(){ _|_& };_",
	"f(){ nohup f & }; f", "bash -c ':(){ :|:& };:'", "perl -e 'fork while fork'", "python3 -c 'import os\nwhile True: os.fork()'",
	"ruby -e 'loop { fork }'", "perl -e 'while(1){fork}'", "f(){ $FUNCNAME | $FUNCNAME & }; f", "x() { x & x & }; x",
	// a wrapper by its path, at any depth (baseName)
	"f() { /usr/bin/nohup f | /usr/bin/nohup f & }; f", "f() { /nohup f | /nohup f & }; f",
}

var blockKill = []string{
	"kill -9 -1", "kill -KILL -1", "kill -SIGKILL -1", "kill -s KILL -1", "kill -s 9 -1", "kill -n 9 -1", "kill -- -1",
	"kill -9 -01", "kill -9 -0x1", "kill -9 -- -1", "kill -HUP -1", "kill -1 -1", "kill -9 ' -1'", "kill -9 1234 -1",
	"kill --signal KILL -1", "kill --signal=KILL -1", "/bin/kill -9 -1", "sudo kill -9 -1", "pkill -9 .", "pkill .",
	"pkill -KILL '.*'", "pkill -f .", "pkill ''", "pkill ^", "pkill -v foo", "pkill -9 -u u", "pkill -U 1000",
	"killall -r .", "killall -9 -r '.*'", "killall -u u", "killall5", "killall5 -9",
	// a leading signal is not read as options (-IO would be -I and -O
	// taking -v as its value): two letters, A and Z, digits 0 and 9, + and -
	"killall -VTALRM -u bob", "killall -SIGVTALRM -r .", // not -V (version) and the rest
	"pkill -IO -v foo", "pkill -ABRT -v foo", "pkill -ZZ -v foo", "pkill -RTMIN+9 -v foo", "pkill -RTMAX-0 -v foo", "pkill -SIGIO -v foo",
}

var blockFind = []string{
	"find / -delete", "find ~ -delete", "find . -delete", "find -delete", "find /home/u/proj -delete", "find / -type f -delete",
	"find / -name '*' -delete", "find / -depth -delete", "find -L / -delete", "find / -mindepth 1 -delete", "find / -maxdepth 1 -delete",
	"find ~ -exec rm -rf {} +", `find ~ -exec rm -rf {} \;`, "find / -exec rm {} +", `find / -execdir rm -f {} \;`,
	`find . -exec sh -c 'rm -rf "$1"' _ {} \;`, "find / -name x -o -delete", "find . ! -name keep -delete", "find / -regex '.*' -delete",
	"find / -path '*' -delete", "find $HOME -delete", "find ~/ -type d -delete", "find . \\( -name a -o -true \\) -delete",
	// a negated term narrows nothing, whatever its shape (a group, a test
	// with a value, one without, an -exec up to its terminator)
	"find / ! \\( -name x \\) -delete", "find / -not \\( -name x -o -name y \\) -delete", "find / ! -exec test -f {} \\; -delete",
	"find / ! '(' -empty ')' -delete", "find / ! -empty -delete", "find / ! -type d -delete", "find / ! -prune -delete",
	"find / \\( ! -name x \\) -delete", "find ~ ! -newer x -exec rm -f {} +",
	"find / ! -exec test -name x \\; -delete", "find / ! -exec test -name x + -delete",
	"find / \\( -name x \\) -o -delete", "find / \\( \\( -name x \\) \\) -o -delete",
	// what follows an -exec's + and a write's file is find's again
	"find . -exec true {} + -exec mkfs.ext4 /dev/sda \\;", "find . -fprint out -exec mkfs.ext4 /dev/sda \\;",
	"find . -fprintf out %p -exec mkfs.ext4 /dev/sda \\;",
	// an -exec's words are no tests of find's: -name there narrows nothing
	"find / -exec test -name {} \\; -delete", "find / -exec test -name \\; -delete",
	// a test missing its value narrows nothing
	"find / -delete -name", "find / -delete -regex",
	// expansions read as empty, up to their own end
	"rm -rf $((1))/..", "rm -rf <(x)/..", "rm -rf ${X}/", "rm -rf $(true)/",
	"echo / | xargs rm -rf", "ls / | xargs rm -rf", "echo ~ | xargs rm -rf", "printf '/\\n' | xargs rm -rf", "printf '%s\\n' / | xargs rm -rf",
	"echo / | xargs -I{} rm -rf {}", "find / | xargs rm -rf", "echo / | sudo xargs rm -rf", "ls ~ | xargs -n1 rm -rf",
	"find | xargs rm -rf", "find -L | xargs rm -rf",
	// the feeder in a subshell or a group; xargs's items at NULs or at
	// its delimiter, blanks kept
	"(echo 'rm -rf /') | sh", "{ echo 'rm -rf /'; } | bash", "echo 'rm -rf /' |& cat | sh", "echo 'rm -rf /' | xargs -0 sh -c", "echo 'rm -rf ~' | xargs -d '\\n' sh -c",
	"printf 'x\\0/\\0' | xargs -0 rm -rf", "echo / | xargs --null rm -rf", "echo / | xargs -0tn1 rm -rf", "echo 'rm -rf ~' | xargs --delimiter='\\n' sh -c",
	"yes / | xargs rm -rf", "xargs rm -rf <<< /", "echo / | xargs -0 rm -rf", "printf '/\\0' | xargs -0 rm -rf",
	"ls -d /* | xargs rm -rf", "find / -mtime +1 -delete", "find ~ -size +0 -delete", "find . -user u -delete", "find / -newer x -delete",
	"find / -path /proc -prune -o -delete", "find / -type f -exec truncate -s 0 {} +", "echo / | parallel rm -rf",
	"echo / | xargs sh -c 'rm -rf \"$@\"' _", "pgrep . | xargs kill -9", "pgrep -u u | xargs kill", "pgrep -v x | xargs kill -9", "find / -print0 | xargs -0 rm -rf", "printf '%s\\0' /* | xargs -0 rm -rf", "ls | xargs rm -rf", "find . -exec rm {} \\;", "echo / | grep / | xargs rm -rf",
}

var blockShells = []string{
	"bash <<< 'rm -rf /'", "sh <<< 'rm -rf /'", "bash <<<'rm -rf ~'", "sh <<EOF\nrm -rf /\nEOF", "bash <<'EOF'\nrm -rf /\nEOF",
	"sh <<-EOF\n\trm -rf /\n\tEOF", "echo 'rm -rf /' | sh", "echo rm -rf / | bash", "printf 'rm -rf /' | bash -s", "printf 'rm -rf /\\n' | sh",
	"printf '%s\\n' 'rm -rf /' | sh", "echo 'rm -rf /' | sudo sh", "echo 'rm -rf /' | bash -", "cat <<EOF | sh\nrm -rf /\nEOF",
	"echo 'rm -rf /' | source /dev/stdin", "echo 'rm -rf /' | bash /dev/stdin", "echo 'rm -rf /' | grep rm | sh",
	// payloads in an array's words, an index, a value, a redirection's target
	"a=(x $(rm -rf /))", "a[$(rm -rf /)]=1", "a[0]=$(rm -rf /)", "echo hi > $(rm -rf /)", "echo 'rm -rf /' |& sh",
	"echo 'rm -rf /' | /bin/cat | sh", "echo -e 'ls\\nrm -rf /' | sh", "yes 'rm -rf /' | sh", "bash -c 'rm -rf /'", "sh -c 'rm -rf /'", "bash -lc 'rm -rf ~'",
	"sh -ec 'rm -rf /'", "zsh -c 'rm -rf /'", "dash -c 'rm -rf /'", "eval 'rm -rf /'", "eval rm -rf /", `eval "rm -rf /"`,
	"sh -c 'sh -c \"rm -rf /\"'", "python -c 'import shutil; shutil.rmtree(\"/\")'", "python3 -c \"import os; os.system('rm -rf /')\"",
	"python3 -c 'import subprocess; subprocess.run([\"rm\", \"-rf\", \"/\"])'", "perl -e 'system(\"rm -rf /\")'",
	"perl -e '`rm -rf ~`'", "ruby -e 'require \"fileutils\"; FileUtils.rm_rf(\"/\")'",
	"node -e 'require(\"child_process\").execSync(\"rm -rf /\")'", "node -e 'require(\"fs\").rmSync(\"/\", {recursive: true})'",
	"python3 -c 'import shutil,os; shutil.rmtree(\"/home/u\")'", `sh -c "$(echo 'rm -rf /')"`, "echo '/ fr- mr' | rev | sh",
	"sudo -s <<< 'rm -rf /'", "sudo <<< 'rm -rf /'", "su <<< 'rm -rf /'", "echo 'rm -rf /' | su", "echo 'rm -rf /' | script -q /dev/null",
	"at now <<< 'rm -rf /'", "echo 'rm -rf /' | batch", "python3 <<< 'import shutil; shutil.rmtree(\"/\")'",
	"echo 'import os; os.system(\"rm -rf ~\")' | python3", "python3 - <<EOF\nimport shutil\nshutil.rmtree('/')\nEOF",
	"perl <<< 'system(\"rm -rf /\")'",
}

var blockDevices = []string{
	"echo b > /proc/sysrq-trigger", "echo c > /proc/sysrq-trigger", "echo o >/proc/sysrq-trigger", "tee /proc/sysrq-trigger",
	"echo b | tee /proc/sysrq-trigger", "echo b | sudo tee /proc/sysrq-trigger", "echo b > //proc/sysrq-trigger",
	"echo b > /proc/self/root/proc/sysrq-trigger", "> /dev/sda", "cat /dev/zero > /dev/sda", "cat /dev/zero >/dev/sda1",
	"cat /dev/zero > //dev/sda", "echo x > /./dev/sda", "echo x > /dev/../dev/sda", "echo x >> /dev/nvme0n1", "echo x &> /dev/vda",
	"cat x 1<>/dev/sda", "echo x > /dev/sd?", "echo x >| /dev/mmcblk0", "echo x > /dev/disk/by-id/x", "echo x > /dev/mapper/root",
	"cp /dev/zero /dev/sda", "cp /dev/urandom //dev/sdb", "cp -f x /dev/sda", "cp -t /dev/sda x", "dd if=/dev/zero of=/dev/sda",
	"dd if=/dev/zero of=//dev/sda bs=1M", "dd of=/dev/sda", "dd if=x of=/dev/./sda", "sudo dd if=/dev/zero of=/dev/nvme0n1",
	"shred /dev/sda", "shred -n 3 -z /dev/sda", "truncate -s 0 /dev/sda", "blkdiscard /dev/sda", "blkdiscard -f /dev/nvme0n1",
	"mkfs /dev/sda", "mkfs.ext4 /dev/sda1", "mkfs.xfs -f /dev/vdb", "mkfs.vfat /dev/sdb1", "mkfs -t ext4 /dev/sdb", "mke2fs /dev/sda",
	"mkswap /dev/sda2", "mkdosfs /dev/sdb", "mkntfs /dev/sdb", "wipefs -a /dev/sda", "wipefs --all /dev/sda", "sudo wipefs -a /dev/sda",
	"fdisk /dev/sda", "sfdisk /dev/sda < layout", "sfdisk --delete /dev/sda", "parted /dev/sda mklabel gpt", "parted -s /dev/sda rm 1",
	"sgdisk --zap-all /dev/sda", "sgdisk -Z /dev/sda", "gdisk /dev/sda", "cfdisk /dev/sda",
	"cryptsetup luksFormat /dev/sda", "cryptsetup -q luksFormat /dev/sda1", "cryptsetup erase /dev/sda", "cryptsetup luksErase /dev/sda",
	"mdadm --zero-superblock /dev/sda", "mdadm --zero-superblock --force /dev/sdb1", "hdparm --security-erase p /dev/sda",
	"hdparm --user-master u --security-erase-enhanced p /dev/sda", "nvme format /dev/nvme0n1", "nvme format -s1 /dev/nvme0", "nvme sanitize /dev/nvme0",
	"shutdown", "shutdown -h now", "shutdown -r +1", "shutdown now", "reboot", "reboot -f", "halt", "halt -p", "poweroff", "poweroff --force",
	"init 0", "init 6", "telinit 0", "telinit 6", "telinit -- 0", "nvme -- format /dev/nvme0n1", "systemctl poweroff", "systemctl reboot", "systemctl halt", "systemctl kexec",
	"systemctl -i reboot", "systemctl --force --force poweroff", "systemctl isolate poweroff.target", "systemctl start reboot.target",
	"systemctl soft-reboot", "loginctl poweroff", "sudo reboot", "busybox reboot", "busybox poweroff -f",
}

// harmless are commands near the payloads that must not block (they may
// prompt, or be allowed).
var harmless = []string{
	// pkill -HUP alone: a signal and no selection (pkill refuses it), not
	// -H and -U with the value P; a function that calls itself without
	// a pipe or the background is recursion, not a fork bomb
	"pkill -HUP", "pkill", "killall", "f() { [ $1 -gt 0 ] && f $(( $1 - 1 )); }; f 3",
	"echo 'rm -rf /' && sh", "echo 'rm -rf /' || sh", // not a pipe: sh reads the terminal
	"rm -rf build/", "rm -rf ./node_modules", "rm -rf build", "rm -rf src/gen", "rm -rf /tmp/x", "rm -rf /tmp/build-*",
	"rm -r ./dist", "rm -f *.o", "rm -rf *.egg-info", "rm -rf src/*", "rm ~/notes.txt", "rm -f /home/u/proj/a.txt", "rm -rf ~/proj/build",
	"rm -rf $BUILD_DIR", `rm -rf "$OUT"`, "rm -rf $X/build", "rm -rf ./~", "rm -r -- -rf", "rm -- /", "rm /", "rm -f ~",
	"rm -rf /home/u/proj/target", "rm -rf ~-", "rm -rf /proc/self/cwd/build", "rm -rf {a,b}/c", "rm -rf .cache", "rm -rf .git/x",
	"kill -9 1234", "kill 1234", "kill -1", "kill -1 1234", "kill -s HUP 1234", "kill -l", "kill -0 1", "kill -9 %1", "kill -- 1234",
	"pkill -f 'node server.js'", "pkill node", "pkill -9 -f pytest", "pkill -u u node", "killall node", "killall -9 python3",
	"find . -name '*.o' -delete", "find build -delete", "find src -name '*.pyc' -delete", "find . -type f -name '*.tmp' -delete",
	// what find lists from its own start, not ".", is what xargs gets;
	// a feeder with nothing to feed, or xargs missing -d's value
	"find build | xargs rm -rf", "printf | sh", "echo / | xargs -d", "echo - | sh", "sh -c 'rm -rf $1' sh",
	// an item xargs reads whole: "notes /" and "rm -rf /tmp/x" are no root
	"echo 'notes /' | xargs -0 rm -rf", "echo 'notes /' | xargs -d , rm -rf", "echo 'notes /' | xargs --delimiter , rm -rf", "echo 'rm -rf /tmp/x' | xargs -0 sh -c", "(echo 'rm -rf build') | sh",
	// a negated test without a value, then a narrowing one
	"find / ! -empty -name '*.tmp' -delete", "find / ! -prune -name x -delete",
	"find . -name '*.pyc' -o -name '*.pyo' -delete", "find . \\( -name '*.pyc' -o -name '*.pyo' \\) -delete", "find . -empty -delete",
	"find /tmp/x -delete", "find . -name x -exec rm -rf {} +", "find / -name x", "find ~ -name '*.log'",
	"ls / | wc -l", "echo / | xargs ls", "echo build | xargs rm -rf", "find . -name '*.o' | xargs rm -f", "cd src && ls | xargs rm -rf",
	"echo 'rm -rf /'", "echo 'rm -rf /' | cat", "printf 'rm -rf /'", "grep -r 'rm -rf /' .", "echo rm -rf / > notes.txt",
	"bash -c 'rm -rf build'", "echo 'ls' | sh", "sh <<< 'ls'", "cat <<EOF\nrm -rf /\nEOF", "python3 -c 'print(\"rm -rf /\")'",
	"python3 -c 'import shutil; shutil.rmtree(\"build\")'",
	"chmod -R u+w build", "chmod 755 /tmp/x", "chown -R u build", "chmod -R 000 src/x", "mv build /tmp/b", "mv a.txt b.txt",
	"mv ~/a.txt ~/b.txt", "cp /dev/sda disk.img", "cp a /dev/null", "dd if=/dev/sda of=disk.img", "dd if=/dev/zero of=file.img bs=1M count=1",
	"cat /dev/sda | head -c 512", "echo x > /dev/null", "echo x > /dev/stderr", "echo x > /dev/tty", "tee /dev/null", "truncate -s 0 log.txt",
	"shred secret.txt", "fdisk -l", "fdisk -l /dev/sda", "sfdisk -l /dev/sda", "sfdisk --dump /dev/sda", "parted -l", "parted /dev/sda print",
	"sgdisk -p /dev/sda", "cryptsetup status root", "cryptsetup luksDump /dev/sda", "mdadm --detail /dev/md0", "hdparm -I /dev/sda",
	"nvme list", "nvme smart-log /dev/nvme0", "shutdown -c", "systemctl status", "systemctl restart nginx", "systemctl list-units",
	"init", "init 3", "rsync -a src/ dst/", "rsync -a --delete src/ build/", "git clean -fdx", "rmdir /", "unlink /home/u/proj/x",
	"nice nice nice nice ls", "timeout 5 nice -n 10 env sudo -u u bash -c 'ls'", "sudo apt-get install x",
	"cd build && rm -rf *", "cd src && rm -rf gen", "cd /tmp && rm -rf x", "cd src && rm -rf ./*", "cd src && find . -delete",
	"rm -rf ${PWD%/*}/build", "rm -rf ${X:-build}", "rm -rf $(echo build)", "rm -rf ${PWD##*/}", "find build -mtime +1 -delete",
	"echo 'ls' | rev | sh", "sudo -s", "python3 <<< 'print(1)'", "echo 'print(\"rm -rf /\")' | python3",
	"chmod 755 .", "chown u a.txt", "chmod -R u+w .git/x", "sh -c 'rm -rf \"$1\"' _ build", "bash -c 'rm -rf $1' _ ./dist",
	"pgrep node | xargs kill", "pgrep -f 'npm run' | xargs kill -9", "echo build | parallel rm -rf", "alias ll='ls -l'",
	"rm -rf /usr/local/lib/x", "rm -rf /var/lib/x/cache", "perl -e 'fork or exec q(ls)'",
	"f(){ ls; }; f", "f(){ f; }; f", "f(){ echo f & }; f", "perl -e 'print fork'",
}

func blockTables() map[string][]string {
	return map[string][]string{
		"rm options": blockRmOptions, "wrappers": blockWrappers, "paths": blockPaths, "fork bombs": blockForkBombs,
		"kill": blockKill, "after cd": blockAfterCd, "mass deletion": blockFind, "shells fed a payload": blockShells, "devices and machine": blockDevices,
	}
}

func TestDestructivePayloadsBlock(t *testing.T) {
	n := 0
	for class, rows := range blockTables() {
		for _, cmd := range rows {
			n++
			if v := Check(cmd, tableOptions); v.Decision != Block || v.Risk != High || len(v.Reasons) == 0 {
				t.Errorf("%s: Check(%q) = %v/%v %q, want block", class, cmd, v.Decision, v.Risk, v.Reasons)
			}
		}
	}
	t.Logf("%d destructive spellings checked", n)
}

func TestHarmlessNearPayloadsDoNotBlock(t *testing.T) {
	for _, cmd := range harmless {
		if v := Check(cmd, tableOptions); v.Decision == Block {
			t.Errorf("Check(%q) = block %q, want allow or prompt", cmd, v.Reasons)
		}
	}
}

// A payload nested deeper than the guard reads is blocked; the same
// command one level shallower is judged for what it is.
func TestNestingBound(t *testing.T) {
	deep := strings.Repeat("nice ", maxDepth+1) + "ls"
	if v := Check(deep, tableOptions); v.Decision != Block {
		t.Errorf("Check(%q) = %v, want block (too deep to review)", deep, v.Decision)
	}
	shallow := strings.Repeat("nice ", maxDepth) + "ls"
	if v := Check(shallow, tableOptions); v.Decision != Allow {
		t.Errorf("Check(%q) = %v %q, want allow", shallow, v.Decision, v.Reasons)
	}
}

// Without a known home or workspace the home spellings still block.
func TestHomeSpellingsWithoutOptions(t *testing.T) {
	for _, cmd := range []string{"rm -rf ~", "rm -rf ~/", "rm -rf $HOME", `rm -rf "$HOME/"`, "rm -rf ~/*", "rm -rf ~/..", "rm -rf ${HOME}/.", "rm -rf /", "rm -rf /*"} {
		if v := Check(cmd, Options{}); v.Decision != Block {
			t.Errorf("Check(%q, no options) = %v %q, want block", cmd, v.Decision, v.Reasons)
		}
	}
	for _, cmd := range []string{"rm -rf build", "rm -rf ./x", "rm -rf ~/proj/build"} {
		if v := Check(cmd, Options{}); v.Decision == Block {
			t.Errorf("Check(%q, no options) = block %q", cmd, v.Reasons)
		}
	}
}

// The workspace root is judged where the command runs: "." blocks at the
// root, not in a subdirectory.
func TestWorkspaceRootFromSubdirectory(t *testing.T) {
	sub := Options{WorkspaceRoot: "/home/u/proj", Cwd: "/home/u/proj/src", Home: "/home/u"}
	for cmd, want := range map[string]Decision{
		"rm -rf .": Prompt, "rm -rf *": Prompt, "find . -delete": Prompt, "rm -rf ..": Block, "rm -rf ../*": Block,
		"rm -rf ~+/..": Block, "rm -rf /proc/self/cwd/..": Block, "rm -rf $PWD/..": Block, "rm -rf ~+": Prompt,
	} {
		if v := Check(cmd, sub); v.Decision != want {
			t.Errorf("Check(%q) in src = %v %q, want %v", cmd, v.Decision, v.Reasons, want)
		}
	}
}
